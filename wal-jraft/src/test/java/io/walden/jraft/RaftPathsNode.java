package io.walden.jraft;

import com.alipay.remoting.config.BoltServerOption;
import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.RaftOutter.SnapshotMeta;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.error.RaftException;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcServer;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotReader;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotWriter;
import io.walden.WalConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One member of {@link RaftPathsClusterTest}'s Raft group, the same code in the test JVM and in a child
 * JVM ({@link RaftPathsChild}): a SOFAJRaft node whose state machine is a {@link Register} of write
 * ids, whose snapshots are the register, and whose log storage is Walden's or jraft's RocksDB store
 * (system property {@value #STORAGE_PROPERTY}: {@code walden}, the default, or {@code rocksdb}) behind
 * a {@link RecordingLogStorage} that reports what jraft asks of it.
 *
 * <p>Everything a node has to tell goes to a {@link Listener} as one line of text (the child writes
 * the lines to its standard output, the test parses them the same way in both cases):
 *
 * <ul>
 *   <li>{@code APPLIED <count>} after every batch the register applied;
 *   <li>{@code LEADER <term>}, {@code FOLLOWER} when leadership starts or stops;
 *   <li>{@code ERROR <status>} when jraft calls {@code StateMachine.onError} (the node is in ERROR);
 *   <li>{@code DUP <id> <index>} when a write id is applied a second time;
 *   <li>{@code RESET <nextIndex> <oldTerm> <ok>}: {@code LogStorage.reset}, with the term the log held
 *       at {@code nextIndex - 1} before (0: no entry there);
 *   <li>{@code PREFIX <firstIndexKept> <ok>}, {@code SUFFIX <lastIndexKept> <ok>}: truncations;
 *   <li>{@code APPENDED <lastIndex>} after every append; {@code SHORT <appended> <of> <firstIndex>}:
 *       an append that stored fewer entries than given;
 *   <li>{@code THROW <call> <exception>}: the log storage threw;
 *   <li>{@code SNAPSAVE <count>}, {@code SNAPLOAD <lastIncludedIndex> <lastIncludedTerm> <count>}.
 * </ul>
 *
 * <p><b>Threading:</b> the node's methods are called by one driving thread; the register and the
 * storage wrapper are called by jraft's threads and are thread-safe.
 */
final class RaftPathsNode {
    /** The system property choosing the log storage: {@code walden} (default) or {@code rocksdb}. */
    static final String STORAGE_PROPERTY = "walden.jraft.storage";

    static final String GROUP = "walden-raft-paths";
    static final int ELECTION_TIMEOUT_MS = 1000;
    private static final String SNAPSHOT_FILE = "register";

    /** Receives a node's events, one line each. Called by jraft's threads. */
    interface Listener {
        void on(String event);
    }

    private final PeerId peer;
    private final Register register;
    private final RecordingServiceFactory factory;
    private final RaftGroupService service;
    private final Node node;

    private RaftPathsNode(
            final String storageKind,
            final Configuration configuration,
            final PeerId peer,
            final Path directory,
            final Listener listener) {
        this.peer = peer;
        try {
            // RocksDB creates its directory but not the parents.
            Files.createDirectories(directory);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        this.register = new Register(listener);
        this.factory = new RecordingServiceFactory(storageKind, listener);
        final NodeOptions options = new NodeOptions();
        options.setElectionTimeoutMs(ELECTION_TIMEOUT_MS);
        options.setInitialConf(configuration.copy());
        options.setFsm(register);
        options.setLogUri(directory.resolve("log").toString());
        options.setRaftMetaUri(directory.resolve("meta").toString());
        options.setSnapshotUri(directory.resolve("snapshot").toString());
        // Snapshots only when the test asks for them.
        options.setSnapshotIntervalSecs(0);
        options.setSnapshotLogIndexMargin(0);
        options.setServiceFactory(factory);
        options.setEnableMetrics(false);
        final RaftOptions raftOptions = new RaftOptions();
        // Small rings: several nodes share the test JVM, the child has a small heap.
        raftOptions.setDisruptorBufferSize(1024);
        options.setRaftOptions(raftOptions);
        this.service = new RaftGroupService(GROUP, peer, options);
        this.node = service.start();
    }

    /**
     * Starts a node.
     *
     * @param storageKind {@code walden} or {@code rocksdb}.
     * @param configuration the group's peers.
     * @param peer this node's address.
     * @param directory this node's directory: {@code log}, {@code meta} and {@code snapshot} in it.
     * @param listener receives the node's events.
     * @return the started node.
     */
    static RaftPathsNode start(
            final String storageKind,
            final Configuration configuration,
            final PeerId peer,
            final Path directory,
            final Listener listener) {
        return new RaftPathsNode(storageKind, configuration, peer, directory, listener);
    }

    /** @return the storage kind the system property {@value #STORAGE_PROPERTY} chooses. */
    static String storageKind() {
        final String kind = System.getProperty(STORAGE_PROPERTY, "walden").trim();
        if (!kind.equals("walden") && !kind.equals("rocksdb")) {
            throw new IllegalArgumentException(STORAGE_PROPERTY + " must be walden or rocksdb, not " + kind);
        }
        return kind;
    }

    /**
     * A new, not yet initialised log storage of a kind in a directory.
     *
     * @param storageKind {@code walden} or {@code rocksdb}.
     * @param logDirectory the log directory (a node's {@code log}).
     * @param raftOptions jraft's options (RocksDB's store reads them).
     * @return the storage.
     */
    static LogStorage newStorage(final String storageKind, final Path logDirectory, final RaftOptions raftOptions) {
        if (storageKind.equals("rocksdb")) {
            return new RocksDBLogStorage(logDirectory.toString(), raftOptions);
        }
        return new WaldenLogStorage(logDirectory, dir -> WalConfig.builder(dir)
                .segmentCapacityBytes(1 << 20)
                .bufferCapacityBytes(256 * 1024)
                .maxRecordBytes(64 * 1024)
                .build());
    }

    /** @return options to open a log storage outside a node, as jraft's log manager does. */
    static LogStorageOptions storageOptions() {
        final LogStorageOptions options = new LogStorageOptions();
        options.setConfigurationManager(new ConfigurationManager());
        options.setLogEntryCodecFactory(DefaultJRaftServiceFactory.newInstance().createLogEntryCodecFactory());
        options.setGroupId(GROUP);
        return options;
    }

    /** @return the jraft node. */
    Node node() {
        return node;
    }

    /** @return the address. */
    PeerId peer() {
        return peer;
    }

    /** @return the log storage jraft uses, as this node's wrapper sees it. */
    RecordingLogStorage storage() {
        return factory.storage;
    }

    /** @return a copy of the register's state. */
    RegisterState state() {
        return register.state();
    }

    /**
     * Submits a write to the node (to be accepted it must be the leader).
     *
     * @param id the write's id, positive and unique in the test.
     * @param done receives the write's status, on a jraft thread.
     */
    void write(final long id, final Consumer<Status> done) {
        final ByteBuffer data = ByteBuffer.allocate(Long.BYTES).putLong(0, id);
        node.apply(new Task(data, done::accept));
    }

    /** Shuts the node down cleanly and waits for it. */
    void stop() throws InterruptedException {
        service.shutdown();
        service.join();
    }

    /**
     * Shuts the node down cleanly, for a node that starts again on the same port in another process: waits
     * also until its RPC server closed its listening socket before it closes its connections. jraft's bolt
     * server stops asynchronously: it closes its connections at once and its listening socket later, and a
     * peer's replicator that reconnects in between is accepted by the stopping server. Bolt never closes that
     * connection, the node behind it is gone, and every request of the peer on it is answered "Peer id not
     * found" (ENOENT) for good: the peer never reaches the node in its new process (RaftPathsClusterTest's
     * leader so never reached the child JVM, on a loaded machine). A synchronous stop (bolt's {@code
     * SERVER_SYNC_STOP}; it costs the server's 2 s quiet period) leaves no such connection.
     */
    void stopReleasingPort() throws InterruptedException {
        ((BoltRpcServer) service.getRpcServer()).getServer().option(BoltServerOption.SERVER_SYNC_STOP, true);
        stop();
    }

    /** A register's state: the set of write ids applied, their count and sum, and a digest of their order. */
    record RegisterState(long count, long sum, long digest, BitSet ids) {
        /** @return the state as one line of text (no spaces in the id set). */
        String encode() {
            final StringJoiner words = new StringJoiner(",");
            for (final long word : ids.toLongArray()) {
                words.add(Long.toHexString(word));
            }
            return count + " " + sum + " " + digest + " " + (words.length() == 0 ? "-" : words.toString());
        }

        /**
         * Reads a state from {@link #encode}'s text.
         *
         * @param fields the four fields.
         * @return the state.
         */
        static RegisterState decode(final List<String> fields) {
            final long[] words;
            if (fields.get(3).equals("-")) {
                words = new long[0];
            } else {
                final String[] hex = fields.get(3).split(",");
                words = new long[hex.length];
                for (int i = 0; i < hex.length; i++) {
                    words[i] = Long.parseUnsignedLong(hex[i], 16);
                }
            }
            return new RegisterState(
                    Long.parseLong(fields.get(0)),
                    Long.parseLong(fields.get(1)),
                    Long.parseLong(fields.get(2)),
                    BitSet.valueOf(words));
        }
    }

    /**
     * The replicated state machine: a register of the write ids applied (each entry's data is one
     * 8-byte id), with their count, sum, and a digest over the order in which they were applied (equal
     * digests: the same history). A snapshot is the register.
     */
    static final class Register extends StateMachineAdapter {
        private final Listener listener;
        // Guarded by this.
        private BitSet ids = new BitSet();
        private long count;
        private long sum;
        private long digest;

        Register(final Listener listener) {
            this.listener = listener;
        }

        synchronized RegisterState state() {
            return new RegisterState(count, sum, digest, (BitSet) ids.clone());
        }

        @Override
        public void onApply(final Iterator iterator) {
            long applied = -1;
            while (iterator.hasNext()) {
                final ByteBuffer data = iterator.getData();
                final long id = data.getLong(data.position());
                synchronized (this) {
                    if (ids.get((int) id)) {
                        listener.on("DUP " + id + " " + iterator.getIndex());
                    }
                    ids.set((int) id);
                    count++;
                    sum += id;
                    digest = digest * 1_000_003L + id;
                    applied = count;
                }
                if (iterator.done() != null) {
                    iterator.done().run(Status.OK());
                }
                iterator.next();
            }
            if (applied >= 0) {
                listener.on("APPLIED " + applied);
            }
        }

        @Override
        public void onSnapshotSave(final SnapshotWriter writer, final Closure done) {
            final byte[] bytes;
            final long saved;
            synchronized (this) {
                bytes = encodeState();
                saved = count;
            }
            try {
                final Path file = Path.of(writer.getPath(), SNAPSHOT_FILE);
                try (FileChannel channel = FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
                    final ByteBuffer buffer = ByteBuffer.wrap(bytes);
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                    channel.force(true);
                }
                if (writer.addFile(SNAPSHOT_FILE)) {
                    listener.on("SNAPSAVE " + saved);
                    done.run(Status.OK());
                } else {
                    done.run(new Status(RaftError.EIO, "cannot add the snapshot file"));
                }
            } catch (final IOException ex) {
                done.run(new Status(RaftError.EIO, "cannot write the snapshot: %s", ex));
            }
        }

        @Override
        public boolean onSnapshotLoad(final SnapshotReader reader) {
            final SnapshotMeta meta = reader.load();
            if (meta == null || reader.getFileMeta(SNAPSHOT_FILE) == null) {
                listener.on("ERROR snapshot without its register in " + reader.getPath());
                return false;
            }
            try {
                final byte[] bytes = Files.readAllBytes(Path.of(reader.getPath(), SNAPSHOT_FILE));
                final long loaded;
                synchronized (this) {
                    decodeState(bytes);
                    loaded = count;
                }
                listener.on(
                        "SNAPLOAD " + meta.getLastIncludedIndex() + " " + meta.getLastIncludedTerm() + " " + loaded);
                return true;
            } catch (final IOException ex) {
                listener.on("ERROR cannot read the snapshot in " + reader.getPath() + ": " + ex);
                return false;
            }
        }

        @Override
        public void onLeaderStart(final long term) {
            super.onLeaderStart(term);
            listener.on("LEADER " + term);
        }

        @Override
        public void onLeaderStop(final Status status) {
            super.onLeaderStop(status);
            listener.on("FOLLOWER");
        }

        @Override
        public void onError(final RaftException ex) {
            listener.on(("ERROR " + ex.getType() + " " + ex.getStatus()).replace('\n', ' '));
        }

        /** Holder of this. */
        private byte[] encodeState() {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeLong(count);
                out.writeLong(sum);
                out.writeLong(digest);
                final long[] words = ids.toLongArray();
                out.writeInt(words.length);
                for (final long word : words) {
                    out.writeLong(word);
                }
            } catch (final IOException ex) {
                throw new IllegalStateException(ex);
            }
            return bytes.toByteArray();
        }

        /** Holder of this. */
        private void decodeState(final byte[] bytes) throws IOException {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
                count = in.readLong();
                sum = in.readLong();
                digest = in.readLong();
                final long[] words = new long[in.readInt()];
                for (int i = 0; i < words.length; i++) {
                    words[i] = in.readLong();
                }
                ids = BitSet.valueOf(words);
            }
        }
    }

    /** jraft's default services, with the chosen log storage behind a {@link RecordingLogStorage}. */
    static final class RecordingServiceFactory extends DefaultJRaftServiceFactory {
        private final String storageKind;
        private final Listener listener;
        private volatile RecordingLogStorage storage;

        RecordingServiceFactory(final String storageKind, final Listener listener) {
            this.storageKind = storageKind;
            this.listener = listener;
        }

        @Override
        public LogStorage createLogStorage(final String uri, final RaftOptions raftOptions) {
            final RecordingLogStorage created =
                    new RecordingLogStorage(newStorage(storageKind, Path.of(uri), raftOptions), listener);
            storage = created;
            return created;
        }
    }

    /**
     * A log storage that delegates every call and reports resets, truncations and short appends
     * ({@link WaldenLogStorage} is final, so this wraps instead of extending).
     */
    static final class RecordingLogStorage implements LogStorage {
        private final LogStorage delegate;
        private final Listener listener;

        RecordingLogStorage(final LogStorage delegate, final Listener listener) {
            this.delegate = delegate;
            this.listener = listener;
        }

        @Override
        public boolean init(final LogStorageOptions options) {
            return reported("init", () -> delegate.init(options));
        }

        @Override
        public void shutdown() {
            reported("shutdown", () -> {
                delegate.shutdown();
                return null;
            });
        }

        @Override
        public long getFirstLogIndex() {
            return reported("getFirstLogIndex", delegate::getFirstLogIndex);
        }

        @Override
        public long getLastLogIndex() {
            return reported("getLastLogIndex", delegate::getLastLogIndex);
        }

        @Override
        public LogEntry getEntry(final long index) {
            return reported("getEntry " + index, () -> delegate.getEntry(index));
        }

        /** @return the term of the entry at an index, 0 if the log holds none there. */
        long termAt(final long index) {
            final LogEntry entry = getEntry(index);
            return entry == null ? 0 : entry.getId().getTerm();
        }

        @Override
        @Deprecated
        public long getTerm(final long index) {
            return reported("getTerm " + index, () -> delegate.getTerm(index));
        }

        @Override
        public boolean appendEntry(final LogEntry entry) {
            final boolean appended = reported("appendEntry", () -> delegate.appendEntry(entry));
            listener.on((appended ? "APPENDED " : "SHORT 0 1 ") + entry.getId().getIndex());
            return appended;
        }

        @Override
        public int appendEntries(final List<LogEntry> entries) {
            final int appended = reported("appendEntries", () -> delegate.appendEntries(entries));
            if (entries != null && appended != entries.size()) {
                listener.on("SHORT " + appended + " " + entries.size() + " "
                        + entries.get(0).getId().getIndex());
            }
            if (appended > 0) {
                listener.on("APPENDED " + entries.get(appended - 1).getId().getIndex());
            }
            return appended;
        }

        @Override
        public boolean truncatePrefix(final long firstIndexKept) {
            final boolean done =
                    reported("truncatePrefix " + firstIndexKept, () -> delegate.truncatePrefix(firstIndexKept));
            listener.on("PREFIX " + firstIndexKept + " " + done);
            return done;
        }

        @Override
        public boolean truncateSuffix(final long lastIndexKept) {
            final boolean done =
                    reported("truncateSuffix " + lastIndexKept, () -> delegate.truncateSuffix(lastIndexKept));
            listener.on("SUFFIX " + lastIndexKept + " " + done);
            return done;
        }

        @Override
        public boolean reset(final long nextLogIndex) {
            final long oldTerm = termAt(nextLogIndex - 1);
            final boolean done = reported("reset " + nextLogIndex, () -> delegate.reset(nextLogIndex));
            listener.on("RESET " + nextLogIndex + " " + oldTerm + " " + done);
            return done;
        }

        /**
         * Runs a call of the store's; an exception it throws (jraft's log manager would swallow it into
         * its own log) is reported as {@code THROW <call> <exception>}, then rethrown.
         */
        private <T> T reported(final String call, final Supplier<T> body) {
            try {
                return body.get();
            } catch (final RuntimeException | Error ex) {
                listener.on(("THROW " + call + " " + ex).replace('\n', ' '));
                throw ex;
            }
        }
    }
}
