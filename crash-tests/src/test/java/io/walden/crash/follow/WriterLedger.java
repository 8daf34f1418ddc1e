package io.walden.crash.follow;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a {@link FollowedWriter} reported (see it for the protocol): every append that returned, with
 * its LSN and level, its truncations and quiet windows, and whether it closed cleanly.
 *
 * <p><b>Threading:</b> filled by the thread that reads the child's output; read by the test thread
 * only after that thread has ended (a join orders the two), except {@link #ready()} and {@link
 * #deletedSegments()}, which are volatile.
 */
final class WriterLedger {
    private long[] lsns = new long[1 << 16];
    private long[] tags = new long[1 << 16];
    private int count;
    private final int[] levelCounts = new int[3];
    private final List<String> malformedLines = new ArrayList<>();
    private volatile boolean ready;
    private volatile long deletedSegments;
    private long startPosition = -1;
    private int truncations;
    private long maxTruncateLsn = -1;
    private int quietWindows;
    private int quietWindowsSkipped;
    private long quietRecords;
    private long closedTail = -1;
    private String error;

    /**
     * Parses one complete line.
     *
     * @param line the line without its newline.
     */
    void accept(final String line) {
        final String[] fields = line.split(" ");
        try {
            switch (fields[0]) {
                case "R" -> {
                    startPosition = Long.parseLong(fields[1]);
                    ready = true;
                    return;
                }
                case "A" -> {
                    final int level = "BWS".indexOf(fields[4]);
                    if (fields.length == 5 && fields[4].length() == 1 && level >= 0) {
                        add(Integer.parseInt(fields[1]), Integer.parseInt(fields[2]), Long.parseLong(fields[3]));
                        levelCounts[level]++;
                        return;
                    }
                }
                case "T" -> {
                    truncations++;
                    maxTruncateLsn = Math.max(maxTruncateLsn, Long.parseLong(fields[1]));
                    deletedSegments += Long.parseLong(fields[2]);
                    return;
                }
                case "Q" -> {
                    final int records = Integer.parseInt(fields[2]);
                    if (records == 0) {
                        quietWindowsSkipped++;
                    } else {
                        quietWindows++;
                        quietRecords += records;
                    }
                    return;
                }
                case "C" -> {
                    closedTail = Long.parseLong(fields[1]);
                    return;
                }
                case "E" -> {
                    error = line.substring(Math.min(2, line.length()));
                    return;
                }
                default -> {
                    // Falls through to malformed.
                }
            }
        } catch (final RuntimeException ex) {
            // Falls through to malformed.
        }
        malformedLines.add(line);
    }

    private void add(final int writer, final int seq, final long lsn) {
        if (count == lsns.length) {
            lsns = Arrays.copyOf(lsns, count * 2);
            tags = Arrays.copyOf(tags, count * 2);
        }
        lsns[count] = lsn;
        tags[count] = tag(writer, seq);
        count++;
    }

    /**
     * A record's identity as one long.
     *
     * @param writer the writer tag.
     * @param seq its sequence number.
     * @return the identity.
     */
    static long tag(final int writer, final int seq) {
        return ((long) writer << 32) | (seq & 0xFFFF_FFFFL);
    }

    /** @return whether the writer opened its log. */
    boolean ready() {
        return ready;
    }

    /** @return the log's start when the writer opened it. */
    long startPosition() {
        return startPosition;
    }

    /** @return segments deleted by the writer's truncations so far. */
    long deletedSegments() {
        return deletedSegments;
    }

    /** @return truncateBefore calls. */
    int truncations() {
        return truncations;
    }

    /** @return the highest position passed to truncateBefore, or -1. */
    long maxTruncateLsn() {
        return maxTruncateLsn;
    }

    /** @return quiet windows with at least one append. */
    int quietWindows() {
        return quietWindows;
    }

    /** @return quiet windows that had no room to append (too close to a segment's end). */
    int quietWindowsSkipped() {
        return quietWindowsSkipped;
    }

    /** @return records appended in quiet windows. */
    long quietRecords() {
        return quietRecords;
    }

    /** @return the tail when the writer closed its log, or -1 if it did not close it. */
    long closedTail() {
        return closedTail;
    }

    /** @return appends acknowledged BUFFERED, WRITTEN and SYNCED. */
    int[] levelCounts() {
        return levelCounts.clone();
    }

    /** @return the child's own failure, or null. */
    String error() {
        return error;
    }

    /** @return complete lines that were not in the protocol. */
    List<String> malformedLines() {
        return malformedLines;
    }

    /**
     * Every acknowledged record in LSN order, checked for what a writer's ledger must be: no LSN
     * twice, and each writer's sequence numbers 0, 1, 2, ... with no gap and no repeat, in LSN order.
     *
     * @param writerCount writers (appender threads and the quiet-window writer).
     * @return the records.
     * @throws AssertionError if the ledger itself is inconsistent.
     */
    Records records(final int writerCount) {
        final Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(lsns[a], lsns[b]));
        final Records records = new Records();
        final int[] nextSeq = new int[writerCount];
        for (final int i : order) {
            final long lsn = lsns[i];
            final int writer = (int) (tags[i] >>> 32);
            final int seq = (int) tags[i];
            if (records.size() > 0 && records.lsn(records.size() - 1) == lsn) {
                throw new AssertionError("the writer acknowledged two records at LSN " + lsn);
            }
            if (writer < 0 || writer >= writerCount || seq != nextSeq[writer]) {
                throw new AssertionError("the writer's record (" + writer + ", " + seq + ") at LSN " + lsn
                        + " is out of its sequence (expected sequence "
                        + (writer >= 0 && writer < writerCount ? nextSeq[writer] : -1) + ")");
            }
            nextSeq[writer]++;
            records.add(lsn, tags[i]);
        }
        return records;
    }

    /**
     * Records in LSN order: position and identity ({@link #tag}).
     *
     * <p><b>Threading:</b> filled by one thread; read by another only after a join.
     */
    static final class Records {
        private long[] lsns = new long[1 << 12];
        private long[] tags = new long[1 << 12];
        private int size;

        void add(final long lsn, final long tag) {
            if (size == lsns.length) {
                lsns = Arrays.copyOf(lsns, size * 2);
                tags = Arrays.copyOf(tags, size * 2);
            }
            lsns[size] = lsn;
            tags[size] = tag;
            size++;
        }

        int size() {
            return size;
        }

        long lsn(final int index) {
            return lsns[index];
        }

        long tag(final int index) {
            return tags[index];
        }

        /**
         * The index of the first record at or after a position.
         *
         * @param lsn the position.
         * @return the index, or {@link #size()}.
         */
        int indexFrom(final long lsn) {
            final int found = Arrays.binarySearch(lsns, 0, size, lsn);
            return found >= 0 ? found : -found - 1;
        }

        /**
         * Compares with the ledger's records from an index on: the same records, in the same order.
         *
         * @param expected the ledger's records.
         * @param fromIndex the first of them expected here.
         * @param name who read these, for the message.
         * @return null if equal, else the first difference.
         */
        String differenceFrom(final Records expected, final int fromIndex, final String name) {
            final int expectedSize = expected.size() - fromIndex;
            for (int i = 0; i < Math.min(size, expectedSize); i++) {
                final int e = fromIndex + i;
                if (lsns[i] != expected.lsn(e) || tags[i] != expected.tag(e)) {
                    return name + ": record " + i + " is " + describe(lsns[i], tags[i]) + ", the writer acknowledged "
                            + describe(expected.lsn(e), expected.tag(e)) + " there";
                }
            }
            if (size < expectedSize) {
                return name + ": saw " + size + " records, the writer acknowledged " + expectedSize + "; the first"
                        + " missing is " + describe(expected.lsn(fromIndex + size), expected.tag(fromIndex + size));
            }
            if (size > expectedSize) {
                return name + ": saw " + size + " records, the writer acknowledged only " + expectedSize
                        + "; the first extra is " + describe(lsns[expectedSize], tags[expectedSize]);
            }
            return null;
        }

        private static String describe(final long lsn, final long tag) {
            return "(writer " + (tag >>> 32) + ", seq " + (int) tag + ") at LSN " + lsn;
        }
    }
}
