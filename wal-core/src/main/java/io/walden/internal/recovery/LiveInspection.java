package io.walden.internal.recovery;

import io.walden.LogInspection;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Inspects a log that another process may be writing, where one inspection can meet the writer
 * half-way, and decides which inspection to report.
 *
 * <p>A live writer can make one inspection see trouble that is not there: <b>a segment deleted by
 * retention</b> after the directory was listed ({@link NoSuchFileException}), or <b>the roll fence
 * seen out of order</b> (the newest segment scanned up to a write in progress, then the next
 * segment's first frame found: an early end followed by data). Real damage does not move, while a
 * race does not repeat in one place, since the writer only moves forward. So:
 *
 * <pre>
 *   outcome of an inspection         | then
 *   ---------------------------------+-----------------------------------------------------------
 *   clean or torn tail               | report it
 *   corruption, same as the last one | report it (confirmed)
 *   corruption, other or first       | remember it; after MAX_CORRUPT_INSPECTIONS, report it
 *                                    | unconfirmed; else inspect again
 *   a listed segment vanished        | pause VANISHED_BACKOFF_NS, inspect again; after MAX_VANISHED,
 *                                    | report the corruption remembered, if any, else fail
 *   any other I/O error              | fail (WalException IO, naming the directory)
 * </pre>
 *
 * <p>Retention deletes oldest first, one directory sync apart, so a burst of deletions can meet
 * several inspections in a row: hence the pause and the larger allowance.
 *
 * <p><b>Threading:</b> stateless; runs on the caller's thread.
 */
public final class LiveInspection {
    public static final int MAX_CORRUPT_INSPECTIONS = 3;
    public static final int MAX_VANISHED = 100;
    /** Pause after an inspection met a vanished segment: lets a burst of deletions finish. */
    public static final long VANISHED_BACKOFF_NS = TimeUnit.MILLISECONDS.toNanos(2);

    @FunctionalInterface
    public interface Inspector {
        LogInspection inspect() throws IOException;
    }

    private LiveInspection() {}

    /** Inspects a log directory, which may be live, by the rule above. */
    public static LogInspection inspect(final Path directory) {
        return inspect(
                directory,
                () -> new LogInspector(directory).inspect(),
                MAX_CORRUPT_INSPECTIONS,
                MAX_VANISHED,
                VANISHED_BACKOFF_NS);
    }

    /** Applies the rule above, with given limits, to the inspections an inspector makes. */
    public static LogInspection inspect(
            final Path directory,
            final Inspector inspector,
            final int maxCorruptInspections,
            final int maxVanished,
            final long vanishedBackoffNs) {
        LogInspection unconfirmed = null;
        int corruptInspections = 0;
        int vanishedCount = 0;
        while (true) {
            final LogInspection inspection;
            try {
                inspection = inspector.inspect();
            } catch (final NoSuchFileException ex) {
                if (++vanishedCount < maxVanished) {
                    LockSupport.parkNanos(vanishedBackoffNs);
                    continue;
                }
                if (unconfirmed != null) {
                    return unconfirmed;
                }
                throw new WalException(
                        WalException.ErrorCode.IO,
                        "cannot inspect the log in " + directory + ": in each of " + maxVanished
                                + " inspections a segment file was deleted while it was read (last " + ex.getFile()
                                + "); the writer's retention deletes segments faster than they can be read:"
                                + " inspect again, or inspect a copy",
                        ex);
            } catch (final IOException ex) {
                throw new WalException(
                        WalException.ErrorCode.IO, "cannot inspect the log in " + directory + ": " + ex, ex);
            }
            if (inspection.verdict() != LogInspection.Verdict.CORRUPTION
                    || (unconfirmed != null && sameDamage(unconfirmed, inspection))) {
                return inspection;
            }
            unconfirmed = inspection;
            if (++corruptInspections >= maxCorruptInspections) {
                return unconfirmed;
            }
        }
    }

    private static boolean sameDamage(final LogInspection first, final LogInspection second) {
        final WalCorruptionException a = first.corruption();
        final WalCorruptionException b = second.corruption();
        return a != null
                && b != null
                && Objects.equals(a.file(), b.file())
                && a.fileOffset() == b.fileOffset()
                && Objects.equals(a.getMessage(), b.getMessage());
    }
}
