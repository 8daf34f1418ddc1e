package io.walden.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * What the log and its storage backends may ask about the file system that holds a log: its type,
 * from the mount table; whether it lives in memory (tmpfs, ramfs: nothing survives a power loss,
 * whatever is synced); and whether it is a FUSE file system (whose O_DSYNC and O_DIRECT a backend
 * may not trust).
 *
 * <p><b>Threading:</b> any thread; stateless.
 */
public final class FileSystemTypes {
    /** The type reported when the mount table cannot be read or names no mount for a path. */
    public static final String UNKNOWN = "unknown";

    private static final Set<String> VOLATILE_TYPES = Set.of("tmpfs", "ramfs", "devtmpfs", "hugetlbfs");

    private FileSystemTypes() {}

    /**
     * The type of the file system that holds a directory, as the mount table names it ({@code ext4},
     * {@code xfs}, {@code tmpfs}, {@code fuse.sshfs}, ...).
     *
     * @param directory the directory.
     * @return the type, or {@link #UNKNOWN}.
     */
    public static String type(final Path directory) {
        try {
            return Files.getFileStore(directory).type();
        } catch (final IOException | SecurityException ex) {
            return UNKNOWN;
        }
    }

    /**
     * Whether a file system can keep data through a power loss at all.
     *
     * @param type a type as {@link #type} returns it.
     * @return false for a file system in memory.
     */
    public static boolean survivesPowerLoss(final String type) {
        return !VOLATILE_TYPES.contains(type.toLowerCase(Locale.ROOT));
    }

    /**
     * Whether a file system type is FUSE ({@code fuse}, {@code fuse.*}, {@code fuseblk}).
     *
     * @param type a type as {@link #type} returns it.
     * @return whether it is a FUSE file system.
     */
    public static boolean isFuse(final String type) {
        return type.toLowerCase(Locale.ROOT).startsWith("fuse");
    }

    /**
     * What an io_uring backend with O_DSYNC does differently on a FUSE file system, whose io_uring path
     * completes O_DSYNC writes without a flush: it opens its files without O_DSYNC and the log syncs
     * with fdatasync. In words for {@link StorageCapabilities#durabilityNote()}.
     *
     * @param type the file system type, a FUSE one.
     * @param backendName the backend's name.
     * @return the note, naming the file system, what is done instead and the faster alternative.
     */
    public static String ioUringDsyncOnFuseNote(final String type, final String backendName) {
        return "O_DSYNC writes through io_uring are not made durable on the FUSE file system " + type
                + " (the kernel's FUSE path completes them without a flush), so this " + backendName
                + " backend opens its files without O_DSYNC and the log syncs with fdatasync instead;"
                + " for a faster durable mode here use the FileChannel backend (io.walden.nio) with O_DSYNC";
    }
}
