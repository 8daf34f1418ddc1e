package io.walden.crash.kill;

import java.util.ArrayList;
import java.util.List;

/**
 * What a killed child said on its pipe before it died (see {@link KillChild} for the protocol): its
 * acknowledgements in the order they were reported (a batch's, one per record), the batches it was about
 * to append and those acknowledged, its truncation requests, and how far it got.
 *
 * <p><b>Threading:</b> filled by the thread that reads the child's output; read by the test thread only
 * after that thread has ended (a join orders the two).
 */
final class ChildReport implements KillableChild.Health {
    /**
     * One acknowledgement: the append of record (thread, seq) returned at a level with an LSN.
     *
     * @param thread the child's appender thread.
     * @param seq the thread's sequence number.
     * @param lsn the record's LSN.
     * @param level {@code B}, {@code W} or {@code S}.
     */
    record Ack(int thread, int seq, long lsn, char level) {
        /** @return whether the level promises survival of a process crash (WRITTEN or SYNCED). */
        boolean promisesSurvival() {
            return level == 'W' || level == 'S';
        }
    }

    /**
     * A batch the child was about to append: records (thread, firstSeq .. firstSeq + count - 1).
     *
     * @param thread the child's appender thread.
     * @param firstSeq the sequence number of its first record.
     * @param count how many records it holds.
     */
    record Batch(int thread, int firstSeq, int count) {}

    /**
     * The acknowledgement of a batch: its append returned at a level with these LSNs.
     *
     * @param thread the child's appender thread.
     * @param firstSeq the sequence number of its first record.
     * @param level {@code B}, {@code W} or {@code S}.
     * @param lsns each record's LSN, in order.
     */
    record BatchAck(int thread, int firstSeq, char level, List<Long> lsns) {
        /** @return whether the level promises survival of a process crash (WRITTEN or SYNCED). */
        boolean promisesSurvival() {
            return level == 'W' || level == 'S';
        }
    }

    private final List<Ack> acks = new ArrayList<>();
    private final List<Batch> batches = new ArrayList<>();
    private final List<BatchAck> batchAcks = new ArrayList<>();
    private final List<Long> truncateLsns = new ArrayList<>();
    private final List<String> malformedLines = new ArrayList<>();
    private boolean opening;
    private boolean ready;
    private long recoveredStart = -1;
    private long recoveredEnd = -1;
    private long maxTruncateLsn = -1;
    private int truncatesStarted;
    private int truncatesDone;
    private String error;

    /** Kinds of line, for the kill trigger. */
    enum Event {
        OPENING,
        READY,
        ACK,
        BATCHING,
        TRUNCATING,
        TRUNCATED,
        ERROR,
        MALFORMED
    }

    /**
     * Parses one complete line.
     *
     * @param line the line without its newline.
     * @return what it was.
     */
    Event accept(final String line) {
        final String[] fields = line.split(" ");
        try {
            switch (fields[0]) {
                case "O" -> {
                    opening = true;
                    return Event.OPENING;
                }
                case "R" -> {
                    recoveredStart = Long.parseLong(fields[1]);
                    recoveredEnd = Long.parseLong(fields[2]);
                    ready = true;
                    return Event.READY;
                }
                case "A" -> {
                    if (fields.length != 5 || fields[4].length() != 1 || "BWS".indexOf(fields[4].charAt(0)) < 0) {
                        break;
                    }
                    acks.add(new Ack(
                            Integer.parseInt(fields[1]),
                            Integer.parseInt(fields[2]),
                            Long.parseLong(fields[3]),
                            fields[4].charAt(0)));
                    return Event.ACK;
                }
                case "b" -> {
                    if (fields.length != 4 || Integer.parseInt(fields[3]) < 2) {
                        break;
                    }
                    batches.add(new Batch(
                            Integer.parseInt(fields[1]), Integer.parseInt(fields[2]), Integer.parseInt(fields[3])));
                    return Event.BATCHING;
                }
                case "B" -> {
                    if (fields.length < 6 || fields[3].length() != 1 || "BWS".indexOf(fields[3].charAt(0)) < 0) {
                        break;
                    }
                    final int thread = Integer.parseInt(fields[1]);
                    final int firstSeq = Integer.parseInt(fields[2]);
                    final char level = fields[3].charAt(0);
                    final List<Long> lsns = new ArrayList<>();
                    for (int i = 4; i < fields.length; i++) {
                        lsns.add(Long.parseLong(fields[i]));
                    }
                    // Every record of the batch is acknowledged at the batch's level.
                    batchAcks.add(new BatchAck(thread, firstSeq, level, List.copyOf(lsns)));
                    for (int i = 0; i < lsns.size(); i++) {
                        acks.add(new Ack(thread, firstSeq + i, lsns.get(i), level));
                    }
                    return Event.ACK;
                }
                case "T" -> {
                    truncateLsns.add(Long.parseLong(fields[1]));
                    maxTruncateLsn = Math.max(maxTruncateLsn, Long.parseLong(fields[1]));
                    truncatesStarted++;
                    return Event.TRUNCATING;
                }
                case "t" -> {
                    truncatesDone++;
                    return Event.TRUNCATED;
                }
                case "E" -> {
                    error = line.substring(Math.min(2, line.length()));
                    return Event.ERROR;
                }
                default -> {
                    // Falls through to malformed.
                }
            }
        } catch (final RuntimeException ex) {
            // Falls through to malformed.
        }
        malformedLines.add(line);
        return Event.MALFORMED;
    }

    /**
     * The listener that fills this report with a child's lines and kills the child when a trigger fires.
     *
     * @param trigger when to kill.
     * @return the listener, for the reader thread.
     */
    KillableChild.Listener listener(final KillTrigger trigger) {
        return KillableChild.listener(
                this::accept,
                event -> event == Event.READY || event == Event.ERROR,
                event -> trigger.onEvent(event, this) ? trigger.delayNs() : -1);
    }

    /** @return the acknowledgements in the order reported. */
    List<Ack> acks() {
        return acks;
    }

    /** @return the batches the child was about to append, in the order reported. */
    List<Batch> batches() {
        return batches;
    }

    /** @return the acknowledgements of batches, in the order reported (their records are in {@link #acks}). */
    List<BatchAck> batchAcks() {
        return batchAcks;
    }

    /** @return the last acknowledgement, or null. */
    Ack lastAck() {
        return acks.isEmpty() ? null : acks.get(acks.size() - 1);
    }

    @Override
    public List<String> malformedLines() {
        return malformedLines;
    }

    /** @return whether the child started to open the log. */
    boolean opening() {
        return opening;
    }

    /** @return whether the child opened the log. */
    boolean ready() {
        return ready;
    }

    /** @return the start of the log the child recovered, or -1. */
    long recoveredStart() {
        return recoveredStart;
    }

    /** @return the end of the log the child recovered, or -1. */
    long recoveredEnd() {
        return recoveredEnd;
    }

    /** @return the highest LSN passed to truncateBefore, or -1. */
    long maxTruncateLsn() {
        return maxTruncateLsn;
    }

    /** @return whether a truncateBefore call had started and not returned when the child died. */
    boolean truncationInterrupted() {
        return truncatesStarted > truncatesDone;
    }

    /** @return a one-line account of what the child reported, for failure messages. */
    String summary() {
        return "opened " + ready + " with [" + recoveredStart + ", " + recoveredEnd + "), " + acks.size()
                + " acknowledgements, " + batches.size() + " batches (" + batchAcks.size() + " acknowledged)"
                + (acks.isEmpty()
                        ? ""
                        : " from LSN " + acks.get(0).lsn() + " to " + lastAck().lsn())
                + ", truncateBefore " + truncateLsns + (truncationInterrupted() ? " (the last interrupted)" : "");
    }

    @Override
    public String error() {
        return error;
    }
}
