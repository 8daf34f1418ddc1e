package io.walden.crash.fault;

import io.walden.Durability;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The acknowledgements appenders received: each added only after its append (or await) returned.
 *
 * <p><b>Threading:</b> any thread adds; read after the appenders were joined.
 */
final class Acks {
    /**
     * One acknowledgement.
     *
     * @param writer the appender's tag.
     * @param seq its sequence number.
     * @param lsn the record's LSN.
     * @param level the level the call returned at.
     */
    record Ack(int writer, int seq, long lsn, Durability level) {}

    private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();

    /**
     * Adds one.
     *
     * @param ack the acknowledgement.
     */
    void add(final Ack ack) {
        acks.add(ack);
        count.incrementAndGet();
    }

    /** @return how many so far. */
    int size() {
        return count.get();
    }

    /** @return a copy of all, in the order added. */
    List<Ack> all() {
        return new ArrayList<>(acks);
    }
}
