package io.walden.bench.harness;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import com.alipay.sofa.jraft.storage.log.RocksDBSegmentLogStorage;
import io.walden.jraft.WaldenLogStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The workload of SOFAJRaft's {@code LogStorageBenchmark} (jraft-core's tests, {@code
 * com.alipay.sofa.jraft.storage.impl}), written again here, on one {@link LogStorage}:
 *
 * <ol>
 *   <li>warm-up: {@code appendEntries} of 10,000 entries of 64 B in batches of 10, then {@code
 *       getEntry} of each of them; a batch that is not appended whole fails the run with jraft's
 *       message ("write failures, expect 10, but was 0");
 *   <li>write: {@code appendEntries} of 1,048,576 entries of 16 KiB in batches of 100, one thread,
 *       each call returning once its batch is durable (both stores sync per call); like jraft, the last
 *       batch is full, so 1,048,600 entries are written;
 *   <li>read: {@code getEntry} of each of the 1,048,576 entries, in index order, one thread, checking
 *       its index, its term and its data length.
 * </ol>
 *
 * Every entry is {@code ENTRY_TYPE_NO_OP}, its term equal to its index and its data fresh random
 * bytes, as jraft's {@code TestUtils.mockEntry(index, index, size)} makes them. The store is opened
 * as jraft's benchmark opens it: a {@code new ConfigurationManager()} and {@code
 * LogEntryV2CodecFactory}; RocksDB stores with {@code new RaftOptions()} (sync on).
 *
 * <p>Indexes: jraft's benchmark numbers the warm-up's entries from 0 and the measured write's from 0
 * again, over the warm-up's (RocksDB puts by key, so the second write overwrites the first); {@link
 * Indexes#JRAFT} uses that numbering (the command's default). {@link Indexes#CONTIGUOUS} appends every
 * batch at the store's last index + 1 instead, which a Raft log must accept: warm-up 1 to 10,000,
 * measured write from 10,001, reads of the measured entries.
 *
 * <p>Timing: the write rate is entries over the time spent inside {@code appendEntries} (making the
 * random entries is outside it; jraft's "Cost time" includes it, given here as {@code writeWallS}),
 * and the latency is per {@code appendEntries} call (one batch); the read rate is entries over the
 * read loop's time, the latency per {@code getEntry}.
 *
 * <p><b>Threading:</b> one run on the calling thread; not shared.
 */
final class RaftStorageWorkload {
    /** Line prefix of a run's result. */
    static final String RESULT_PREFIX = "@@RAFTSTORAGE ";
    /** Line prefix of a failed run. */
    static final String FAILURE_PREFIX = "@@RAFTSTORAGE-FAIL ";

    static final int WARMUP_ENTRIES = 10_000;
    static final int WARMUP_ENTRY_BYTES = 64;
    static final int WARMUP_BATCH = 10;

    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);

    /** Where the entries' indexes start. */
    enum Indexes {
        /** Every batch at the store's last index + 1. */
        CONTIGUOUS,
        /** jraft's: the warm-up from 0, the measured write from 0 again. */
        JRAFT
    }

    /** The stores this workload opens. */
    enum Store {
        /** {@code new WaldenLogStorage(dir)}: Walden's default configuration. */
        WALDEN("walden"),
        /** {@code new RocksDBLogStorage(path, new RaftOptions())}: jraft's default log storage. */
        ROCKSDB("rocksdb"),
        /**
         * {@code new RocksDBSegmentLogStorage(path, new RaftOptions())}: what jraft's benchmark's main()
         * constructs (RocksDB for the index, entries of 4 KiB and more in mmap'ed segment files).
         */
        ROCKSDB_SEGMENT("rocksdb-segment");

        final String id;

        Store(final String id) {
            this.id = id;
        }

        static Store of(final String id) {
            for (final Store store : values()) {
                if (store.id.equals(id)) {
                    return store;
                }
            }
            throw new IllegalArgumentException("unknown store '" + id + "': walden, rocksdb or rocksdb-segment");
        }

        /**
         * Opens the store in a directory, as jraft's benchmark opens its store.
         *
         * @param path the store's directory (created by the store).
         * @return the initialised store.
         */
        LogStorage open(final Path path) {
            final LogStorage logStorage =
                    switch (this) {
                        case WALDEN -> new WaldenLogStorage(path);
                        case ROCKSDB -> new RocksDBLogStorage(path.toString(), new RaftOptions());
                        case ROCKSDB_SEGMENT -> new RocksDBSegmentLogStorage(path.toString(), new RaftOptions());
                    };
            final LogStorageOptions options = new LogStorageOptions();
            options.setConfigurationManager(new ConfigurationManager());
            options.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
            if (!logStorage.init(options)) {
                throw new IllegalStateException("cannot open the " + id + " log storage in " + path);
            }
            return logStorage;
        }
    }

    /**
     * One run's figures.
     *
     * @param store the store's id.
     * @param round the round.
     * @param entries entries written by the measured write.
     * @param entryBytes data bytes per entry.
     * @param batch entries per {@code appendEntries}.
     * @param writesPerS entries per second inside {@code appendEntries}.
     * @param writeP50Us median {@code appendEntries} latency, microseconds.
     * @param writeP99Us 99th percentile of it.
     * @param writeMaxUs the slowest call.
     * @param readsPerS entries per second of the read loop.
     * @param readP50Us median {@code getEntry} latency, microseconds.
     * @param readP99Us 99th percentile of it.
     * @param readMaxUs the slowest call.
     * @param writeWallS the write loop's time including making the entries (jraft's "Cost time").
     * @param readWallS the read loop's time.
     * @param diskBytes bytes in the store's files after the read.
     */
    record Result(
            String store,
            int round,
            long entries,
            int entryBytes,
            int batch,
            double writesPerS,
            double writeP50Us,
            double writeP99Us,
            double writeMaxUs,
            double readsPerS,
            double readP50Us,
            double readP99Us,
            double readMaxUs,
            double writeWallS,
            double readWallS,
            long diskBytes) {

        /** The result as the text after {@link #RESULT_PREFIX}. */
        String toLine() {
            return String.format(
                    Locale.ROOT,
                    "%s,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.2f,%.2f,%.1f,%.3f,%.3f,%d",
                    store,
                    round,
                    entries,
                    entryBytes,
                    batch,
                    writesPerS,
                    writeP50Us,
                    writeP99Us,
                    writeMaxUs,
                    readsPerS,
                    readP50Us,
                    readP99Us,
                    readMaxUs,
                    writeWallS,
                    readWallS,
                    diskBytes);
        }

        /** Parses {@link #toLine()}. */
        static Result fromLine(final String line) {
            final String[] f = line.trim().split(",");
            if (f.length != 16) {
                throw new IllegalArgumentException("not a raft-storage-bench result: " + line);
            }
            return new Result(
                    f[0],
                    Integer.parseInt(f[1]),
                    Long.parseLong(f[2]),
                    Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]),
                    Double.parseDouble(f[5]),
                    Double.parseDouble(f[6]),
                    Double.parseDouble(f[7]),
                    Double.parseDouble(f[8]),
                    Double.parseDouble(f[9]),
                    Double.parseDouble(f[10]),
                    Double.parseDouble(f[11]),
                    Double.parseDouble(f[12]),
                    Double.parseDouble(f[13]),
                    Double.parseDouble(f[14]),
                    Long.parseLong(f[15]));
        }

        /** Write throughput in MB/s (10^6 B) of entry data. */
        double writeMbPerS() {
            return writesPerS * entryBytes / 1e6;
        }
    }

    /** A run that did not complete its workload: jraft's benchmark would have exited with status 1. */
    static final class WorkloadFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WorkloadFailure(final String message) {
            super(message);
        }
    }

    private final int entries;
    private final int entryBytes;
    private final int batch;
    private final Indexes indexes;

    /**
     * A workload.
     *
     * @param entries entries to write and read (jraft: 1,048,576).
     * @param entryBytes data bytes per entry (jraft: 16,384).
     * @param batch entries per {@code appendEntries} (jraft: 100).
     * @param indexes where the indexes start.
     */
    RaftStorageWorkload(final int entries, final int entryBytes, final int batch, final Indexes indexes) {
        this.entries = entries;
        this.entryBytes = entryBytes;
        this.batch = batch;
        this.indexes = indexes;
    }

    /**
     * Opens a store in a fresh directory, runs the warm-up, the write and the read, shuts it down.
     *
     * @param store the store.
     * @param round the round, for the result.
     * @param path the store's directory; must not exist yet.
     * @return the figures.
     * @throws WorkloadFailure if a batch is not appended whole or an entry reads back wrong.
     */
    Result run(final Store store, final int round, final Path path) {
        final LogStorage logStorage = store.open(path);
        try {
            // Warm-up, as jraft's: small entries in small batches, then read back.
            final long warmupFirst = indexes == Indexes.JRAFT ? 0 : logStorage.getLastLogIndex() + 1;
            write(logStorage, warmupFirst, WARMUP_ENTRIES, WARMUP_ENTRY_BYTES, WARMUP_BATCH, null);
            read(logStorage, warmupFirst, WARMUP_ENTRIES, WARMUP_ENTRY_BYTES, null);

            final long first = indexes == Indexes.JRAFT ? 0 : logStorage.getLastLogIndex() + 1;
            final Histogram writeLatency = new Histogram(HIGHEST_NS, 3);
            final long writeStartNs = System.nanoTime();
            final long[] written = write(logStorage, first, entries, entryBytes, batch, writeLatency);
            final double writeWallS = (System.nanoTime() - writeStartNs) / 1e9;

            final Histogram readLatency = new Histogram(HIGHEST_NS, 3);
            final long readStartNs = System.nanoTime();
            read(logStorage, first, entries, entryBytes, readLatency);
            final double readWallS = (System.nanoTime() - readStartNs) / 1e9;

            return new Result(
                    store.id,
                    round,
                    written[0],
                    entryBytes,
                    batch,
                    written[0] / (written[1] / 1e9),
                    writeLatency.getValueAtPercentile(50) / 1e3,
                    writeLatency.getValueAtPercentile(99) / 1e3,
                    writeLatency.getMaxValue() / 1e3,
                    entries / readWallS,
                    readLatency.getValueAtPercentile(50) / 1e3,
                    readLatency.getValueAtPercentile(99) / 1e3,
                    readLatency.getMaxValue() / 1e3,
                    writeWallS,
                    readWallS,
                    bytesIn(path));
        } finally {
            logStorage.shutdown();
        }
    }

    /**
     * Appends {@code count} entries from index {@code first} in batches of {@code batchSize}; the last
     * batch is full, as in jraft's loop. Returns the entries written and the nanoseconds spent inside
     * {@code appendEntries}.
     */
    private static long[] write(
            final LogStorage logStorage,
            final long first,
            final int count,
            final int dataBytes,
            final int batchSize,
            final Histogram latency) {
        final List<LogEntry> entries = new ArrayList<>(batchSize);
        long written = 0;
        long insideNs = 0;
        for (long offset = 0; offset < count; offset += batchSize) {
            for (long index = first + offset; index < first + offset + batchSize; index++) {
                entries.add(entry(index, dataBytes));
            }
            final long startNs = System.nanoTime();
            final int appended = logStorage.appendEntries(entries);
            final long tookNs = System.nanoTime() - startNs;
            if (appended != batchSize) {
                throw new WorkloadFailure("write failures, expect " + batchSize + ", but was " + appended
                        + " (batch of indexes " + (first + offset) + " to " + (first + offset + batchSize - 1)
                        + "; the store's last index is " + logStorage.getLastLogIndex() + ")");
            }
            insideNs += tookNs;
            written += batchSize;
            if (latency != null) {
                latency.recordValue(Math.min(tookNs, HIGHEST_NS));
            }
            entries.clear();
        }
        return new long[] {written, insideNs};
    }

    /** Reads {@code count} entries from index {@code first}, in order, and checks each. */
    private static void read(
            final LogStorage logStorage,
            final long first,
            final int count,
            final int dataBytes,
            final Histogram latency) {
        for (long index = first; index < first + count; index++) {
            final long startNs = System.nanoTime();
            final LogEntry entry = logStorage.getEntry(index);
            final long tookNs = System.nanoTime() - startNs;
            if (entry == null) {
                throw new WorkloadFailure("no entry at index " + index);
            }
            if (entry.getId().getIndex() != index
                    || entry.getId().getTerm() != index
                    || entry.getData() == null
                    || entry.getData().remaining() != dataBytes) {
                throw new WorkloadFailure("the entry at index " + index + " reads back as " + entry.getId() + " with "
                        + (entry.getData() == null ? "no data" : entry.getData().remaining() + " B of data")
                        + ", not term " + index + " and " + dataBytes + " B");
            }
            if (latency != null) {
                latency.recordValue(Math.min(tookNs, HIGHEST_NS));
            }
        }
    }

    /** An entry as jraft's {@code TestUtils.mockEntry(index, index, size)} makes it. */
    private static LogEntry entry(final long index, final int dataBytes) {
        final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_NO_OP);
        entry.setId(new LogId(index, index));
        if (dataBytes > 0) {
            final byte[] data = new byte[dataBytes];
            ThreadLocalRandom.current().nextBytes(data);
            entry.setData(ByteBuffer.wrap(data));
        }
        return entry;
    }

    private static long bytesIn(final Path path) {
        try (Stream<Path> files = Files.walk(path)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(file -> {
                        try {
                            return Files.size(file);
                        } catch (final IOException ex) {
                            // RocksDB may delete a file between the listing and this.
                            return 0;
                        }
                    })
                    .sum();
        } catch (final IOException | UncheckedIOException ex) {
            return -1;
        }
    }
}
