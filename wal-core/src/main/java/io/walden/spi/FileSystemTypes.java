package io.walden.spi;

import io.walden.internal.FileSystemCheck;
import java.nio.file.Path;

/**
 * What a storage backend may ask about the file system that holds a log: its type, from the mount
 * table, and whether it is a FUSE file system (whose O_DSYNC and O_DIRECT a backend may not trust).
 *
 * <p><b>Threading:</b> any thread; stateless.
 */
public final class FileSystemTypes {
    /** The type reported when the mount table cannot be read or names no mount for a path. */
    public static final String UNKNOWN = FileSystemCheck.UNKNOWN_TYPE;

    private FileSystemTypes() {}

    /**
     * The type of the file system that holds a directory, as the mount table names it ({@code ext4},
     * {@code xfs}, {@code tmpfs}, {@code fuse.sshfs}, ...).
     *
     * @param directory the directory.
     * @return the type, or {@link #UNKNOWN}.
     */
    public static String type(final Path directory) {
        return FileSystemCheck.type(directory);
    }

    /**
     * Whether a file system type is FUSE.
     *
     * @param type a type as {@link #type} returns it.
     * @return whether it is a FUSE file system.
     */
    public static boolean isFuse(final String type) {
        return FileSystemCheck.isFuse(type);
    }
}
