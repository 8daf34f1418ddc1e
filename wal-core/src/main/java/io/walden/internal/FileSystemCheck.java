package io.walden.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * What the file system under a log promises about durability, read from the mount table ({@link
 * java.nio.file.FileStore#type()}): a file system that lives in memory (tmpfs, ramfs) keeps nothing
 * through a power loss or a reboot, whatever Walden syncs.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class FileSystemCheck {
    /** File system types whose data lives in memory only. */
    private static final Set<String> VOLATILE_TYPES = Set.of("tmpfs", "ramfs", "devtmpfs", "hugetlbfs");

    /** The type reported when the file store cannot be read. */
    public static final String UNKNOWN_TYPE = "unknown";

    private FileSystemCheck() {}

    /**
     * The type of the file system holding a directory, as the mount table names it.
     *
     * @param directory an existing directory.
     * @return the type, for example {@code ext4}, {@code tmpfs} or {@code fuse.sshfs}; {@value
     *     #UNKNOWN_TYPE} if it cannot be read.
     */
    public static String type(final Path directory) {
        try {
            return Files.getFileStore(directory).type();
        } catch (final IOException | SecurityException ex) {
            return UNKNOWN_TYPE;
        }
    }

    /**
     * Whether a file system can keep data through a power loss at all.
     *
     * @param type the file system type.
     * @return false for a file system in memory.
     */
    public static boolean survivesPowerLoss(final String type) {
        return !VOLATILE_TYPES.contains(type.toLowerCase(Locale.ROOT));
    }

    /**
     * Whether a file system is a FUSE file system (a user-space file system: network, cloud or
     * pass-through), whose handling of O_DSYNC depends on the kernel's path to it.
     *
     * @param type the file system type.
     * @return true for {@code fuse}, {@code fuse.*} and {@code fuseblk}.
     */
    public static boolean isFuse(final String type) {
        return type.toLowerCase(Locale.ROOT).startsWith("fuse");
    }
}
