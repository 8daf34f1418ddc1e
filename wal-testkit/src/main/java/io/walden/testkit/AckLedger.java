package io.walden.testkit;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.format.FrameDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a log promised an application, and the checks any application wants after a crash. Note each
 * append (its LSN and payload) and each {@code SYNCED} acknowledgement as it arrives, stamped with the
 * simulated disk's event count; after a crash, {@link #verify} reads the reopened log and checks that
 *
 * <ol>
 *   <li><b>every {@code SYNCED} acknowledgement survived</b>: each record acknowledged {@code SYNCED}
 *       before the crash is in the log, with its payload;
 *   <li><b>the recovered log is a prefix</b> of what was appended, in LSN order: no record is missing
 *       before a record that survived (a crash may cut the tail, never punch a hole), and each batch is
 *       in it whole or not at all;
 *   <li><b>nothing was invented</b>: every record read back was appended, at that LSN, with exactly
 *       those bytes.
 * </ol>
 *
 * <pre>{@code
 * AckLedger ledger = new AckLedger(storage);
 * try (Wal wal = Wal.open(config)) {
 *     ledger.append(wal, payload, Durability.SYNCED);  // or wal.append, then ledger.appended and .synced
 * } catch (WalException ex) { ... the power failed ... }
 * storage.crash(seed);
 * try (Wal wal = Wal.open(config)) {
 *     ledger.verifyRecovered(wal);                       // then go on appending with the same ledger
 * }
 * }</pre>
 *
 * <p>The ledger does not follow {@code truncateBefore} or {@code truncateAfter}: a log that truncates
 * needs its own expectation.
 *
 * <p><b>Threading:</b> thread-safe: appender threads note their appends and acknowledgements
 * concurrently.
 */
public final class AckLedger {
    /** Not acknowledged {@code SYNCED}. */
    private static final int NOT_SYNCED = Integer.MAX_VALUE;

    /**
     * A record of a log: its position and bytes.
     *
     * @param lsn its LSN.
     * @param payload its bytes.
     */
    public record LogRecord(long lsn, byte[] payload) {
        @Override
        public String toString() {
            return "lsn " + lsn + " (" + payload.length + " B)";
        }
    }

    /** A noted append. */
    private static final class Entry {
        final byte[] payload;
        final long batchFirstLsn;
        int syncedAtEvent = NOT_SYNCED;

        Entry(final byte[] payload, final long batchFirstLsn) {
            this.payload = payload;
            this.batchFirstLsn = batchFirstLsn;
        }
    }

    private final SimulatedStorage storage;
    private final TreeMap<Long, Entry> entries = new TreeMap<>();

    /**
     * Starts a ledger for a new, empty log on a simulated storage.
     *
     * @param storage the storage whose event count stamps each acknowledgement.
     */
    public AckLedger(final SimulatedStorage storage) {
        this.storage = Objects.requireNonNull(storage, "storage");
    }

    /**
     * Appends a record and notes it, and its acknowledgement if the level is {@code SYNCED}. If the
     * append fails with an LSN (the record is in the log, its outcome unknown: the power failed), the
     * record is noted unacknowledged and the exception rethrown.
     *
     * @param wal the log.
     * @param payload the record.
     * @param level the durability level to wait for.
     * @return the record's LSN.
     * @throws WalException as {@link Wal#append(byte[], Durability)}.
     */
    public long append(final Wal wal, final byte[] payload, final Durability level) {
        final long lsn;
        try {
            lsn = wal.append(payload, level);
        } catch (final WalException ex) {
            if (ex.lsn() != WalException.NO_LSN) {
                appended(ex.lsn(), payload);
            }
            throw ex;
        }
        appended(lsn, payload);
        if (level == Durability.SYNCED) {
            synced(lsn);
        }
        return lsn;
    }

    /**
     * Appends records as one batch ({@link Wal#append(WalBatch, Durability)}) and notes them, as {@link
     * #append(Wal, byte[], Durability)} does: after any crash all of them must be in the log or none.
     *
     * @param wal the log.
     * @param payloads the records, at least one.
     * @param level the durability level to wait for.
     * @return the LSN of the first record.
     * @throws WalException as {@link Wal#append(WalBatch, Durability)}.
     */
    public long appendBatch(final Wal wal, final List<byte[]> payloads, final Durability level) {
        final WalBatch batch = new WalBatch();
        for (final byte[] payload : payloads) {
            batch.add(payload);
        }
        final long first;
        try {
            first = wal.append(batch, level);
        } catch (final WalException ex) {
            if (ex.lsn() != WalException.NO_LSN) {
                appendedBatch(ex.lsn(), payloads);
            }
            throw ex;
        }
        appendedBatch(first, payloads);
        if (level == Durability.SYNCED) {
            synced(batch.lsn(batch.size() - 1));
        }
        return first;
    }

    /**
     * Notes a record that got an LSN.
     *
     * @param lsn its LSN.
     * @param payload its bytes, not changed afterwards.
     */
    public synchronized void appended(final long lsn, final byte[] payload) {
        add(lsn, payload, lsn);
    }

    /**
     * Notes records appended as one batch.
     *
     * @param firstLsn the LSN of the first; the others follow in consecutive frames.
     * @param payloads their bytes, in batch order, not changed afterwards.
     */
    public synchronized void appendedBatch(final long firstLsn, final List<byte[]> payloads) {
        long lsn = firstLsn;
        for (final byte[] payload : payloads) {
            add(lsn, payload, firstLsn);
            lsn += FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payload.length));
        }
    }

    private void add(final long lsn, final byte[] payload, final long batchFirstLsn) {
        final Entry previous = entries.putIfAbsent(lsn, new Entry(payload, batchFirstLsn));
        if (previous != null) {
            throw new IllegalStateException("lsn " + lsn + " was noted twice: the log gave it to two appends");
        }
    }

    /**
     * Notes a {@code SYNCED} acknowledgement of a noted record (of a batch: of its last record), stamped
     * with the storage's event count now: a crash after that many events must keep the record.
     *
     * @param lsn the record's LSN.
     */
    public synchronized void synced(final long lsn) {
        final Entry entry = entries.get(lsn);
        if (entry == null) {
            throw new IllegalStateException("lsn " + lsn + " was acknowledged but never noted as appended");
        }
        final int eventCount = storage.eventCount();
        for (final Entry covered :
                entries.headMap(lsn, true).tailMap(entry.batchFirstLsn, true).values()) {
            covered.syncedAtEvent = Math.min(covered.syncedAtEvent, eventCount);
        }
    }

    /** @return how many records were noted. */
    public synchronized int size() {
        return entries.size();
    }

    /**
     * Checks a reopened log against every promise: for a crash at the end of the history.
     *
     * @param wal the log, opened after the crash.
     * @throws AssertionError listing every violation.
     */
    public void verify(final Wal wal) {
        verify(wal, Integer.MAX_VALUE);
    }

    /**
     * Checks a reopened log against the promises made before a crash after a number of events of the
     * storage's history ({@link CrashState#eventCount()}).
     *
     * @param wal the log, opened on the crash state.
     * @param eventCount where the power failed.
     * @throws AssertionError listing every violation.
     */
    public void verify(final Wal wal, final int eventCount) {
        final List<String> violations = violations(readAll(wal), eventCount);
        if (!violations.isEmpty()) {
            throw new AssertionError(violations.size() + " violation(s) after a crash"
                    + (eventCount == Integer.MAX_VALUE ? "" : " after " + eventCount + " events") + ": "
                    + String.join("; ", violations));
        }
    }

    /**
     * Checks a log reopened after a crash at the end of the history, as {@link #verify(Wal)} does, then
     * takes what it holds as the ledger's new start: everything recovery kept is durable, and the
     * records it did not keep will never come back. The same ledger then follows the log through its
     * next crash; the storage's event count has started again with the crash.
     *
     * @param wal the log, opened after the crash.
     * @throws AssertionError listing every violation.
     */
    public synchronized void verifyRecovered(final Wal wal) {
        final List<LogRecord> recovered = readAll(wal);
        final List<String> violations = violations(recovered, Integer.MAX_VALUE);
        if (!violations.isEmpty()) {
            throw new AssertionError(
                    violations.size() + " violation(s) after a crash: " + String.join("; ", violations));
        }
        final TreeMap<Long, Entry> kept = new TreeMap<>();
        for (final LogRecord record : recovered) {
            final Entry entry = entries.get(record.lsn());
            entry.syncedAtEvent = 0;
            kept.put(record.lsn(), entry);
        }
        entries.clear();
        entries.putAll(kept);
    }

    /**
     * The violations of a crash after a number of events by the records a reopened log holds.
     *
     * @param recovered every record read from the log's start, in LSN order.
     * @param eventCount where the power failed ({@link Integer#MAX_VALUE}: at the end).
     * @return what is wrong; empty if nothing.
     */
    public synchronized List<String> violations(final List<LogRecord> recovered, final int eventCount) {
        final List<String> violations = new ArrayList<>();
        final List<Long> appendedLsns = new ArrayList<>(entries.keySet());
        int index = 0;
        for (final LogRecord record : recovered) {
            final Entry entry = entries.get(record.lsn());
            if (entry == null) {
                violations.add("invented record at lsn " + record.lsn() + ": no append got that LSN");
                return violations;
            }
            if (!Arrays.equals(entry.payload, record.payload())) {
                violations.add("the record at lsn " + record.lsn() + " differs from what was appended there ("
                        + record.payload().length + " bytes read, " + entry.payload.length + " appended)");
                return violations;
            }
            // Recovered LSNs ascend, and this one was appended: if it is not the next appended one, the
            // next appended one is missing before it.
            if (appendedLsns.get(index) != record.lsn()) {
                violations.add("not a prefix: lsn " + record.lsn() + " survived but lsn " + appendedLsns.get(index)
                        + ", appended before it, did not");
                return violations;
            }
            index++;
        }
        int lost = 0;
        long firstLost = -1;
        for (final Map.Entry<Long, Entry> missing : entries.tailMap(
                        index == 0 ? Long.MIN_VALUE : appendedLsns.get(index - 1), index == 0)
                .entrySet()) {
            final int syncedAt = missing.getValue().syncedAtEvent;
            if (syncedAt != NOT_SYNCED && syncedAt <= eventCount) {
                lost++;
                firstLost = firstLost < 0 ? missing.getKey() : firstLost;
            }
        }
        if (lost > 0) {
            violations.add(lost + " record(s) acknowledged SYNCED were lost, the first at lsn " + firstLost
                    + "; the log ends after " + index + " of " + entries.size() + " appended records");
        }
        if (index > 0 && index < appendedLsns.size()) {
            final Entry last = entries.get(appendedLsns.get(index - 1));
            final Entry next = entries.get(appendedLsns.get(index));
            if (next.batchFirstLsn == last.batchFirstLsn) {
                violations.add("the batch at lsn " + last.batchFirstLsn + " survived in part: the log ends at lsn "
                        + appendedLsns.get(index - 1) + ", inside it; a batch is all or nothing");
            }
        }
        return violations;
    }

    /**
     * Reads every record of a log from its start, at {@code SYNCED} visibility (after an open, all that
     * recovery kept).
     *
     * @param wal the log.
     * @return the records, in LSN order.
     */
    public static List<LogRecord> readAll(final Wal wal) {
        final List<LogRecord> records = new ArrayList<>();
        try (WalReader reader = wal.reader(wal.startPosition())) {
            reader.replay((buffer, offset, length, lsn) -> {
                final byte[] payload = new byte[length];
                buffer.getBytes(offset, payload);
                records.add(new LogRecord(lsn, payload));
            });
        }
        return records;
    }
}
