package io.walden.tools;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Tells whether a process holds a log's lock, without touching the lock: it reads the kernel's table
 * of file locks ({@code /proc/locks}, Linux) and looks for the lock file's device and inode. Taking
 * the lock, even briefly or shared, could make the writer's open fail, so the tool never does.
 *
 * <p><b>Threading:</b> stateless.
 */
final class LockProbe {
    private static final Path LOCKS = Path.of("/proc/locks");

    private LockProbe() {}

    /**
     * What the probe found.
     *
     * @param state whether the lock is held.
     * @param pid the holder's process id when held, else -1.
     */
    record Holder(State state, long pid) {
        /** @return a phrase for the output. */
        String describe() {
            switch (state) {
                case HELD:
                    return "open: " + (pid > 0 ? "process " + pid : "a process") + " holds "
                            + SegmentNames.LOCK_FILE_NAME;
                case FREE:
                    return "not open: no process holds " + SegmentNames.LOCK_FILE_NAME;
                case NO_LOCK_FILE:
                    return "not open (no " + SegmentNames.LOCK_FILE_NAME + ": a copy, or never opened here)";
                default:
                    return "unknown (the lock table /proc/locks cannot be read here)";
            }
        }
    }

    /** Whether the lock is held. */
    enum State {
        /** A process holds the lock: the log is open. */
        HELD,
        /** The lock file exists and no process holds it. */
        FREE,
        /** The directory has no lock file. */
        NO_LOCK_FILE,
        /** The lock table cannot be read (not Linux, or no /proc). */
        UNKNOWN
    }

    /**
     * Looks up who holds a log directory's lock.
     *
     * @param directory the log directory.
     * @return what was found.
     */
    static Holder holder(final Path directory) {
        final Path lockFile = directory.resolve(SegmentNames.LOCK_FILE_NAME);
        if (!Files.exists(lockFile)) {
            return new Holder(State.NO_LOCK_FILE, -1);
        }
        try {
            final long inode = ((Number) Files.getAttribute(lockFile, "unix:ino")).longValue();
            final long device = ((Number) Files.getAttribute(lockFile, "unix:dev")).longValue();
            final long major = ((device >>> 8) & 0xFFF) | ((device >>> 32) & ~0xFFFL);
            final long minor = (device & 0xFF) | ((device >>> 12) & ~0xFFL);
            final List<String> lines = Files.readAllLines(LOCKS);
            for (final String line : lines) {
                final long pid = holderPid(line, major, minor, inode);
                if (pid != 0) {
                    return new Holder(State.HELD, pid);
                }
            }
            return new Holder(State.FREE, -1);
        } catch (final IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException ex) {
            return new Holder(State.UNKNOWN, -1);
        }
    }

    /**
     * Parses one line of /proc/locks, e.g. {@code 1: POSIX ADVISORY WRITE 4242 fd:01:1234 0 EOF}.
     *
     * @return the holder's pid if the line is a granted lock on the file, else 0.
     */
    static long holderPid(final String line, final long major, final long minor, final long inode) {
        final String[] fields = line.trim().split("\\s+");
        if (fields.length < 6 || fields[1].equals("->")) {
            return 0; // a blocked request, not a held lock
        }
        final String[] id = fields[5].split(":");
        if (id.length != 3) {
            return 0;
        }
        try {
            if (Long.parseLong(id[0], 16) != major
                    || Long.parseLong(id[1], 16) != minor
                    || Long.parseLong(id[2]) != inode) {
                return 0;
            }
            final long pid = Long.parseLong(fields[4]);
            return pid == 0 ? -1 : pid; // OFD locks show -1: held, owner unknown
        } catch (final NumberFormatException ex) {
            return 0;
        }
    }
}
