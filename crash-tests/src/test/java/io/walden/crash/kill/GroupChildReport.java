package io.walden.crash.kill;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a killed {@link GroupKillChild} said on its pipe before it died (see there for the protocol): the
 * groups' bounds its open found, how many steps it began to append, the acknowledgement of each that
 * returned, and its purges.
 *
 * <p><b>Threading:</b> filled by the thread that reads the child's output; read by the test thread only
 * after that thread has ended (a join orders the two).
 */
final class GroupChildReport implements KillableChild.Health {
    /**
     * The acknowledgement of a step: its append returned at a level.
     *
     * @param lsn the position of the step's last record.
     * @param level {@code B}, {@code W} or {@code S}.
     */
    record Ack(long lsn, char level) {
        /** @return whether the level promises survival of a process crash (WRITTEN or SYNCED). */
        boolean promisesSurvival() {
            return level == 'W' || level == 'S';
        }
    }

    /** Kinds of line, for the kill trigger. */
    enum Event {
        OPENING,
        READY,
        STEP,
        ACK,
        PURGING,
        /** A purge returned having relocated nothing. */
        PURGED,
        /** A purge returned having relocated records. */
        RELOCATED,
        ERROR,
        MALFORMED
    }

    private final Map<Long, long[]> bounds = new LinkedHashMap<>();
    private final List<Ack> acks = new ArrayList<>();
    private final List<String> malformedLines = new ArrayList<>();
    private boolean opening;
    private boolean ready;
    private int steps;
    private int purgesStarted;
    private int purgesDone;
    private int relocatingPurges;
    private long relocatedRecords;
    private long segmentsFreed;
    private String error;

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
                    for (int i = 1; i < fields.length; i++) {
                        final String[] group = fields[i].split(":");
                        bounds.put(
                                Long.parseLong(group[0]),
                                new long[] {Long.parseLong(group[1]), Long.parseLong(group[2])});
                    }
                    ready = true;
                    return Event.READY;
                }
                case "s" -> {
                    if (fields.length == 2 && Integer.parseInt(fields[1]) == steps && acks.size() == steps) {
                        steps++;
                        return Event.STEP;
                    }
                }
                case "a" -> {
                    if (fields.length == 4
                            && Integer.parseInt(fields[1]) == acks.size()
                            && acks.size() == steps - 1
                            && fields[3].length() == 1
                            && "BWS".indexOf(fields[3].charAt(0)) >= 0) {
                        acks.add(new Ack(Long.parseLong(fields[2]), fields[3].charAt(0)));
                        return Event.ACK;
                    }
                }
                case "p" -> {
                    purgesStarted++;
                    return Event.PURGING;
                }
                case "P" -> {
                    final long relocated = Long.parseLong(fields[1]);
                    relocatedRecords += relocated;
                    segmentsFreed += Long.parseLong(fields[2]);
                    purgesDone++;
                    relocatingPurges += relocated > 0 ? 1 : 0;
                    return relocated > 0 ? Event.RELOCATED : Event.PURGED;
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
    KillableChild.Listener listener(final GroupKillTrigger trigger) {
        return KillableChild.listener(
                this::accept,
                event -> event == Event.READY || event == Event.ERROR,
                event -> trigger.onEvent(event) ? trigger.delayNs() : -1);
    }

    /** @return each workload group's {first, last} as the child's open found them, or empty. */
    Map<Long, long[]> bounds() {
        return bounds;
    }

    /** @return how many steps the child began to append. */
    int steps() {
        return steps;
    }

    /**
     * @param step a step number below {@link #steps()}.
     * @return its acknowledgement, or null if its append had not returned when the child died.
     */
    Ack ack(final int step) {
        return step < acks.size() ? acks.get(step) : null;
    }

    /** @return how many steps were acknowledged. */
    int acknowledged() {
        return acks.size();
    }

    /** @return whether the child started to open the log. */
    boolean opening() {
        return opening;
    }

    /** @return whether the child opened the log. */
    boolean ready() {
        return ready;
    }

    /** @return how many purges were reported begun. */
    int purges() {
        return purgesStarted;
    }

    /** @return whether a purge had begun and not returned when the child died. */
    boolean purgeInterrupted() {
        return purgesStarted > purgesDone;
    }

    /** @return how many of the child's finished purges relocated records. */
    int relocatingPurges() {
        return relocatingPurges;
    }

    /** @return records the child's finished purges relocated. */
    long relocatedRecords() {
        return relocatedRecords;
    }

    /** @return segments the child's finished purges freed. */
    long segmentsFreed() {
        return segmentsFreed;
    }

    /** @return complete lines that were not in the protocol (or out of order). */
    @Override
    public List<String> malformedLines() {
        return malformedLines;
    }

    @Override
    public String error() {
        return error;
    }

    /** @return a one-line account of what the child reported, for failure messages. */
    String summary() {
        return "opened " + ready + ", " + steps + " steps begun, " + acks.size() + " acknowledged, " + purgesStarted
                + " purges" + (purgeInterrupted() ? " (the last interrupted)" : "") + ", " + relocatedRecords
                + " records relocated by " + relocatingPurges + " of them, " + segmentsFreed + " segments freed";
    }
}
