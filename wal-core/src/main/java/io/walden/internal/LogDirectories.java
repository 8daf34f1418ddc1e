package io.walden.internal;

import io.walden.spi.FileSystemTypes;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What opening a log does to and says about its directory before recovery: creates it durably, and
 * warns when the file system or the backend cannot make {@code SYNCED} records survive power loss.
 *
 * <p><b>Threading:</b> any thread; the set of warned file system types is concurrent.
 */
final class LogDirectories {
    private static final System.Logger LOGGER = System.getLogger(LogDirectories.class.getName());
    private static final Set<String> WARNED_FILE_SYSTEM_TYPES = ConcurrentHashMap.newKeySet();

    private LogDirectories() {}

    /**
     * Creates the log directory if missing and fsyncs the parent of each directory created, so that
     * the directory (and with it every synced record) survives power loss.
     */
    public static void createDurably(final Path directory) throws IOException {
        final Path absolute = directory.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        final Path parent = absolute.getParent();
        if (parent != null) {
            createDurably(parent);
        }
        try {
            Files.createDirectory(absolute);
        } catch (final FileAlreadyExistsException ex) {
            if (Files.isDirectory(absolute)) {
                return;
            }
            throw ex;
        }
        if (parent != null) {
            try (FileChannel channel = FileChannel.open(parent, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }
    }

    /**
     * Warns when the log's file system keeps nothing across a power loss (once per type and JVM: the
     * statistics say it too), and when the backend's session has a durability note; says once what
     * btrfs's copy on write means for a log.
     */
    public static void warnIfNotDurable(final Path directory, final String fileSystemType, final String note) {
        if (!FileSystemTypes.survivesPowerLoss(fileSystemType)) {
            LOGGER.log(
                    WARNED_FILE_SYSTEM_TYPES.add(fileSystemType)
                            ? System.Logger.Level.WARNING
                            : System.Logger.Level.DEBUG,
                    "the log in " + directory + " is on " + fileSystemType + ", a file system in memory:"
                            + " SYNCED records survive a process crash there, but no power loss or reboot."
                            + " Put the log on a disk file system (ext4, xfs) for durability.");
        }
        if (note != null) {
            LOGGER.log(System.Logger.Level.WARNING, "the log in " + directory + ": " + note);
        }
        if ("btrfs".equals(fileSystemType)) {
            LOGGER.log(
                    WARNED_FILE_SYSTEM_TYPES.add(fileSystemType) ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
                    "the log in " + directory + " is on btrfs, which copies on write: every overwrite of a"
                            + " prepared or recycled segment needs new space (on a full disk the log waits at any"
                            + " write, and opening rewrites a header in place). A log directory made with"
                            + " 'chattr +C' before its first segment is overwritten in place (btrfs then keeps no"
                            + " data checksums of its own; Walden checksums every frame): DURABILITY.md, Full disk.");
        }
    }
}
