package io.walden.testkit;

import java.util.Locale;
import java.util.Objects;

/**
 * Where a simulated power failure strikes: right after the Nth operation of a kind, counted from the
 * moment it is armed with {@link SimulatedStorage#crashAfter}. The operation counted takes effect (a
 * write's bytes reach the page cache, a sync completes and makes what it covers durable, a rename or
 * delete changes the directory); every operation after it fails, so nothing after it can be
 * acknowledged.
 *
 * <p>Written as {@code kind#count}, for example {@code sync#3} (after the third completed fdatasync)
 * or {@code event#0} (at once), {@code data#12} (after the twelfth event of the log's data path):
 * {@link #toString()} and {@link #parse} round-trip, which is how a
 * failure report names a crash point to replay.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class CrashPoint {
    /** The operations a crash point counts. */
    public enum Operation {
        /** Any event of the disk's history: submissions and completions alike. */
        EVENT,
        /**
         * An event of the log's data path: a write to a segment file or an fdatasync of one, or the
         * completion of either. Segment preparation and directory operations, which run beside the
         * appends at their own pace, are not counted, so these points follow the application's
         * progress and make the steadiest replay keys.
         */
        DATA,
        /** A write submitted: its bytes are in the page cache, not yet durable. */
        WRITE,
        /** An fdatasync completed: the writes it covers are durable. */
        SYNC,
        /** A file renamed in the directory (not yet durable). */
        RENAME,
        /** A file deleted from the directory (not yet durable). */
        DELETE,
        /** A directory fsync completed: the directory operations it covers are durable. */
        DIRECTORY_SYNC;

        /**
         * Whether an event is one of this kind.
         *
         * @param event the event.
         * @param data whether it is an event of a segment file's data path (see {@link #DATA}).
         * @return true if it counts.
         */
        boolean counts(final DiskEvent event, final boolean data) {
            return switch (this) {
                case EVENT -> true;
                case DATA -> data;
                case WRITE -> event instanceof DiskEvent.Write;
                case SYNC -> event instanceof DiskEvent.SyncDone;
                case RENAME -> event instanceof DiskEvent.Rename;
                case DELETE -> event instanceof DiskEvent.Delete;
                case DIRECTORY_SYNC -> event instanceof DiskEvent.DirectorySyncDone;
            };
        }

        private String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Operation operation;
    private final int count;

    private CrashPoint(final Operation operation, final int count) {
        this.operation = Objects.requireNonNull(operation, "operation");
        if (count < (operation == Operation.EVENT ? 0 : 1)) {
            throw new IllegalArgumentException("a crash point after " + count + " operations of kind " + operation
                    + ": the count must be at least " + (operation == Operation.EVENT ? 0 : 1));
        }
        this.count = count;
    }

    /**
     * The power fails right after the Nth operation of a kind.
     *
     * @param operation the kind.
     * @param count N: at least 1, or at least 0 for {@link Operation#EVENT} (0: at once).
     * @return the crash point.
     */
    public static CrashPoint after(final Operation operation, final int count) {
        return new CrashPoint(operation, count);
    }

    /**
     * The power fails after a number of events of any kind.
     *
     * @param count how many events may still happen; 0 for at once.
     * @return the crash point.
     */
    public static CrashPoint afterEvents(final int count) {
        return new CrashPoint(Operation.EVENT, count);
    }

    /**
     * The power fails right after the Nth event of the log's data path ({@link Operation#DATA}).
     *
     * @param count N, at least 1.
     * @return the crash point.
     */
    public static CrashPoint afterDataEvents(final int count) {
        return new CrashPoint(Operation.DATA, count);
    }

    /**
     * The power fails right after the Nth write is submitted.
     *
     * @param count N, at least 1.
     * @return the crash point.
     */
    public static CrashPoint afterWrites(final int count) {
        return new CrashPoint(Operation.WRITE, count);
    }

    /**
     * The power fails right after the Nth fdatasync completes.
     *
     * @param count N, at least 1.
     * @return the crash point.
     */
    public static CrashPoint afterSyncs(final int count) {
        return new CrashPoint(Operation.SYNC, count);
    }

    /**
     * The power fails right after the Nth rename.
     *
     * @param count N, at least 1.
     * @return the crash point.
     */
    public static CrashPoint afterRenames(final int count) {
        return new CrashPoint(Operation.RENAME, count);
    }

    /**
     * The power fails right after the Nth directory fsync completes.
     *
     * @param count N, at least 1.
     * @return the crash point.
     */
    public static CrashPoint afterDirectorySyncs(final int count) {
        return new CrashPoint(Operation.DIRECTORY_SYNC, count);
    }

    /**
     * Reads a crash point as {@link #toString()} writes it, for example {@code sync#3}.
     *
     * @param text the text.
     * @return the crash point.
     * @throws IllegalArgumentException if the text is not a crash point.
     */
    public static CrashPoint parse(final String text) {
        final int hash = text.indexOf('#');
        if (hash > 0) {
            final String label = text.substring(0, hash).trim();
            for (final Operation operation : Operation.values()) {
                if (operation.label().equals(label)) {
                    try {
                        return new CrashPoint(
                                operation,
                                Integer.parseInt(text.substring(hash + 1).trim()));
                    } catch (final NumberFormatException ex) {
                        break;
                    }
                }
            }
        }
        throw new IllegalArgumentException(
                "not a crash point: '" + text + "' (expected kind#count, for example sync#3 or event#120)");
    }

    /** @return the kind of operation counted. */
    public Operation operation() {
        return operation;
    }

    /** @return how many operations of the kind happen before the power fails. */
    public int count() {
        return count;
    }

    @Override
    public boolean equals(final Object other) {
        return other instanceof CrashPoint point && point.operation == operation && point.count == count;
    }

    @Override
    public int hashCode() {
        return operation.hashCode() * 31 + count;
    }

    @Override
    public String toString() {
        return operation.label() + "#" + count;
    }
}
