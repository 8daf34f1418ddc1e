package io.walden.bench.harness;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import io.walden.bench.BenchFiles;
import io.walden.jraft.WaldenLogStorage;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * How long a Raft log of many entries takes to open ({@code LogStorage.init}): the entries are
 * appended in batches, the storage is shut down, and then opened again several times. Walden rebuilds
 * its in-memory index of entries by reading the whole log; RocksDB opens its database. The page cache
 * is warm (the entries were just written): a cold start also reads the log from the disk.
 *
 * <p>With {@code --truncations N}, the log is then opened once more and {@code truncateSuffix} timed N
 * times: each appends {@value #TRUNCATION_ENTRIES} entries and discards the last half of them, as a
 * follower does after a leader change (Walden truncates its open log; RocksDB deletes a key range).
 *
 * <p>Output: a line {@code @@RAFTOPEN storage,entries,valueBytes,openMs} per open, and {@code
 * @@RAFTTRUNC storage,entries,discarded,truncateMs} per truncation.
 *
 * <p><b>Threading:</b> the main thread only.
 */
@Command(
        name = "raft-open",
        mixinStandardHelpOptions = true,
        description = "Open time (LogStorage.init) of a Raft log of many entries, on Walden or on jraft's RocksDB log"
                + " storage.")
public final class RaftOpenCommand implements Callable<Integer> {
    private static final int BATCH = 256;
    private static final int TRUNCATION_ENTRIES = 100;

    @Option(names = "--storage", required = true, description = "walden or rocksdb")
    String storage;

    @Option(names = "--entries", defaultValue = "1000000", description = "entries in the log (default 1000000)")
    int entries;

    @Option(names = "--value-bytes", defaultValue = "128", description = "bytes of data per entry (default 128)")
    int valueBytes;

    @Option(names = "--opens", defaultValue = "3", description = "timed opens (default 3)")
    int opens;

    @Option(
            names = "--truncations",
            defaultValue = "0",
            description = "timed truncateSuffix calls after the opens (default 0)")
    int truncations;

    @Option(names = "--dir", description = "directory for the log; default a fresh one under target/")
    Path dir;

    @Spec
    CommandSpec spec;

    /** Creates the command; picocli sets the options. */
    public RaftOpenCommand() {}

    @Override
    public Integer call() throws Exception {
        if (!storage.equals("walden") && !storage.equals("rocksdb")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--storage must be walden or rocksdb");
        }
        if (entries < 1 || opens < 1 || valueBytes < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--entries and --opens must be at least 1");
        }
        final Path directory = dir != null ? dir : BenchFiles.freshDirectory("raft-open-" + storage + "-");
        final Path log = Files.createDirectories(directory).resolve("log");
        try {
            LogStorage logStorage = newStorage(log);
            final long writeStartNs = System.nanoTime();
            final List<LogEntry> batch = new ArrayList<>(BATCH);
            for (long index = 1; index <= entries; index++) {
                final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
                entry.setId(new LogId(index, 1));
                entry.setData(ByteBuffer.allocate(valueBytes));
                batch.add(entry);
                if (batch.size() == BATCH || index == entries) {
                    if (logStorage.appendEntries(batch) != batch.size()) {
                        throw new IllegalStateException("appending entries to " + log + " failed");
                    }
                    batch.clear();
                }
            }
            logStorage.shutdown();
            System.out.printf(
                    Locale.ROOT,
                    "%s: wrote %,d entries of %d B in %.1f s%n",
                    storage,
                    entries,
                    valueBytes,
                    (System.nanoTime() - writeStartNs) / 1e9);
            for (int i = 0; i < opens; i++) {
                final long startNs = System.nanoTime();
                logStorage = newStorage(log);
                final double openMs = (System.nanoTime() - startNs) / 1e6;
                if (logStorage.getLastLogIndex() != entries) {
                    throw new IllegalStateException(
                            "the log opened with last index " + logStorage.getLastLogIndex() + ", not " + entries);
                }
                logStorage.shutdown();
                System.out.printf(Locale.ROOT, "%s: opened %,d entries in %.0f ms%n", storage, entries, openMs);
                System.out.printf(Locale.ROOT, "@@RAFTOPEN %s,%d,%d,%.1f%n", storage, entries, valueBytes, openMs);
            }
            if (truncations > 0) {
                timeTruncations(newStorage(log));
            }
            return 0;
        } finally {
            if (dir == null) {
                BenchFiles.deleteRecursively(directory);
            }
        }
    }

    /** Appends entries and discards the last half of them, {@link #truncations} times; shuts the log down. */
    private void timeTruncations(final LogStorage logStorage) {
        try {
            for (int i = 0; i < truncations; i++) {
                final List<LogEntry> batch = new ArrayList<>(TRUNCATION_ENTRIES);
                final long first = logStorage.getLastLogIndex() + 1;
                for (long index = first; index < first + TRUNCATION_ENTRIES; index++) {
                    final LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
                    entry.setId(new LogId(index, 1));
                    entry.setData(ByteBuffer.allocate(valueBytes));
                    batch.add(entry);
                }
                if (logStorage.appendEntries(batch) != batch.size()) {
                    throw new IllegalStateException("appending entries failed");
                }
                final long kept = first + TRUNCATION_ENTRIES / 2 - 1;
                final long startNs = System.nanoTime();
                if (!logStorage.truncateSuffix(kept)) {
                    throw new IllegalStateException("truncateSuffix(" + kept + ") failed");
                }
                final double truncateMs = (System.nanoTime() - startNs) / 1e6;
                if (logStorage.getLastLogIndex() != kept) {
                    throw new IllegalStateException(
                            "after truncateSuffix(" + kept + ") the last index is " + logStorage.getLastLogIndex());
                }
                System.out.printf(
                        Locale.ROOT,
                        "%s: truncateSuffix discarded %d of %,d entries in %.1f ms%n",
                        storage,
                        TRUNCATION_ENTRIES / 2,
                        first + TRUNCATION_ENTRIES - 1,
                        truncateMs);
                System.out.printf(
                        Locale.ROOT,
                        "@@RAFTTRUNC %s,%d,%d,%.2f%n",
                        storage,
                        first + TRUNCATION_ENTRIES - 1,
                        TRUNCATION_ENTRIES / 2,
                        truncateMs);
            }
        } finally {
            logStorage.shutdown();
        }
    }

    private LogStorage newStorage(final Path log) {
        final LogStorage logStorage = storage.equals("walden")
                ? new WaldenLogStorage(log)
                : new RocksDBLogStorage(log.toString(), new RaftOptions());
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(new ConfigurationManager());
        options.setLogEntryCodecFactory(DefaultJRaftServiceFactory.newInstance().createLogEntryCodecFactory());
        if (!logStorage.init(options)) {
            throw new IllegalStateException("cannot open the " + storage + " log in " + log);
        }
        return logStorage;
    }
}
