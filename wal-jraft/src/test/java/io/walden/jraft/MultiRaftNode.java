package io.walden.jraft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.WalConfig;
import io.walden.groups.GroupLogConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One process of {@link MultiRaftClusterTest}: many Raft groups (a {@link RaftGroupService} each, RheaKV
 * style, on one shared RPC server and jraft's shared timers) whose logs are views of ONE shared group log
 * ({@link WaldenGroupsJRaftServiceFactory}); each group's state machine is a {@link RaftPathsNode.Register}
 * and its log storage is wrapped in a {@link RaftPathsNode.RecordingLogStorage}. Every event is reported
 * to the listener as {@code <group> <event>} ({@link RaftPathsNode} lists the events).
 *
 * <p><b>Threading:</b> {@link #startGroup}, {@link #stopGroup} and {@link #stop} by one driving thread;
 * the rest from any thread.
 */
final class MultiRaftNode {
    static final String GROUP_PREFIX = "multi-";
    static final int ELECTION_TIMEOUT_MS = 3000;

    private final Configuration configuration;
    private final PeerId peer;
    private final Path directory;
    private final RaftPathsNode.Listener listener;
    private final RpcServer rpcServer;
    private final WaldenGroupsJRaftServiceFactory shared;
    private final RecordingFactory factory;
    private final RaftGroupService[] services;
    private final Node[] nodes;
    private final RaftPathsNode.Register[] registers;

    MultiRaftNode(
            final Configuration configuration,
            final PeerId peer,
            final Path directory,
            final int groups,
            final RaftPathsNode.Listener listener) {
        this.configuration = configuration;
        this.peer = peer;
        this.directory = directory;
        this.listener = listener;
        this.services = new RaftGroupService[groups];
        this.nodes = new Node[groups];
        this.registers = new RaftPathsNode.Register[groups];
        this.shared = WaldenGroupsJRaftServiceFactory.open(
                GroupLogConfig.builder(WalConfig.builder(directory.resolve("shared-log"))
                                .segmentCapacityBytes(4 << 20)
                                .bufferCapacityBytes(512 * 1024)
                                .maxRecordBytes(128 * 1024)
                                .build())
                        .build());
        this.factory = new RecordingFactory(shared, listener);
        this.rpcServer = RaftRpcServerFactory.createRaftRpcServer(peer.getEndpoint());
        if (!rpcServer.init(null)) {
            throw new IllegalStateException("cannot start the RPC server on " + peer);
        }
    }

    /** Starts (or starts again) a group's node. */
    void startGroup(final int group) {
        final RaftPathsNode.Listener groupListener = event -> listener.on(group + " " + event);
        registers[group] = new RaftPathsNode.Register(groupListener);
        final NodeOptions options = new NodeOptions();
        options.setElectionTimeoutMs(ELECTION_TIMEOUT_MS);
        options.setInitialConf(configuration.copy());
        options.setFsm(registers[group]);
        // The log is a group of the shared log: the uri is its name, no directory.
        options.setLogUri("group-" + group);
        options.setRaftMetaUri(dir("meta", group));
        options.setSnapshotUri(dir("snapshot", group));
        options.setSnapshotIntervalSecs(0);
        options.setSnapshotLogIndexMargin(0);
        options.setServiceFactory(factory);
        options.setEnableMetrics(false);
        // One timer pool and one thread per timer kind for every group of the process.
        options.setSharedTimerPool(true);
        options.setSharedElectionTimer(true);
        options.setSharedVoteTimer(true);
        options.setSharedStepDownTimer(true);
        options.setSharedSnapshotTimer(true);
        options.setTimerPoolSize(2);
        final RaftOptions raftOptions = new RaftOptions();
        raftOptions.setDisruptorBufferSize(256);
        options.setRaftOptions(raftOptions);
        services[group] = new RaftGroupService(GROUP_PREFIX + group, peer, options, rpcServer, true);
        nodes[group] = services[group].start(false);
        if (nodes[group] == null) {
            throw new IllegalStateException("group " + group + " did not start on " + peer);
        }
    }

    private String dir(final String kind, final int group) {
        final Path path = directory.resolve(kind).resolve("group-" + group);
        try {
            Files.createDirectories(path);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return path.toString();
    }

    /** Shuts a group's node down and waits until its log view let the group go. */
    void stopGroup(final int group) throws InterruptedException {
        final RaftGroupService service = services[group];
        services[group] = null;
        nodes[group] = null;
        service.shutdown();
        service.join();
        factory.awaitShutdown("group-" + group);
    }

    /** @return the group's node, or null while it is stopped. */
    Node node(final int group) {
        return nodes[group];
    }

    RaftPathsNode.Register register(final int group) {
        return registers[group];
    }

    /** @return the group's log storage as the node sees it. */
    RaftPathsNode.RecordingLogStorage storage(final int group) {
        return factory.storage("group-" + group);
    }

    /** @return the shared factory (its log). */
    WaldenGroupsJRaftServiceFactory shared() {
        return shared;
    }

    void write(final int group, final long id, final Consumer<Status> done) {
        final ByteBuffer data = ByteBuffer.allocate(Long.BYTES).putLong(0, id);
        nodes[group].apply(new Task(data, done::accept));
    }

    /** Stops every group, the RPC server and the shared log. */
    void stop() throws InterruptedException {
        for (int group = 0; group < services.length; group++) {
            if (services[group] != null) {
                stopGroup(group);
            }
        }
        rpcServer.shutdown();
        shared.close();
    }

    /** The shared factory's views, each wrapped to report what jraft asks of it. */
    static final class RecordingFactory extends com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory {
        private final WaldenGroupsJRaftServiceFactory shared;
        private final RaftPathsNode.Listener listener;
        private final ConcurrentHashMap<String, RaftPathsNode.RecordingLogStorage> storages = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<String, CountDownLatch> shutdowns = new ConcurrentHashMap<>();

        RecordingFactory(final WaldenGroupsJRaftServiceFactory shared, final RaftPathsNode.Listener listener) {
            this.shared = shared;
            this.listener = listener;
        }

        @Override
        public LogStorage createLogStorage(final String uri, final RaftOptions raftOptions) {
            final CountDownLatch shutdown = new CountDownLatch(1);
            shutdowns.put(uri, shutdown);
            final String group = uri.substring("group-".length());
            final LogStorage view = shared.createLogStorage(uri, raftOptions);
            final RaftPathsNode.RecordingLogStorage recording = new RaftPathsNode.RecordingLogStorage(
                    new ShutdownNotifying(view, shutdown), event -> listener.on(group + " " + event));
            storages.put(uri, recording);
            return recording;
        }

        RaftPathsNode.RecordingLogStorage storage(final String uri) {
            return storages.get(uri);
        }

        void awaitShutdown(final String uri) throws InterruptedException {
            final CountDownLatch shutdown = shutdowns.get(uri);
            if (shutdown != null && !shutdown.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the log of " + uri + " was not shut down");
            }
        }
    }

    /** Delegates, and counts a latch down once the storage shut down. */
    private static final class ShutdownNotifying implements LogStorage {
        private final LogStorage delegate;
        private final CountDownLatch shutdown;

        ShutdownNotifying(final LogStorage delegate, final CountDownLatch shutdown) {
            this.delegate = delegate;
            this.shutdown = shutdown;
        }

        @Override
        public boolean init(final com.alipay.sofa.jraft.option.LogStorageOptions options) {
            return delegate.init(options);
        }

        @Override
        public void shutdown() {
            delegate.shutdown();
            shutdown.countDown();
        }

        @Override
        public long getFirstLogIndex() {
            return delegate.getFirstLogIndex();
        }

        @Override
        public long getLastLogIndex() {
            return delegate.getLastLogIndex();
        }

        @Override
        public com.alipay.sofa.jraft.entity.LogEntry getEntry(final long index) {
            return delegate.getEntry(index);
        }

        @Override
        @Deprecated
        public long getTerm(final long index) {
            return delegate.getTerm(index);
        }

        @Override
        public boolean appendEntry(final com.alipay.sofa.jraft.entity.LogEntry entry) {
            return delegate.appendEntry(entry);
        }

        @Override
        public int appendEntries(final java.util.List<com.alipay.sofa.jraft.entity.LogEntry> entries) {
            return delegate.appendEntries(entries);
        }

        @Override
        public boolean truncatePrefix(final long firstIndexKept) {
            return delegate.truncatePrefix(firstIndexKept);
        }

        @Override
        public boolean truncateSuffix(final long lastIndexKept) {
            return delegate.truncateSuffix(lastIndexKept);
        }

        @Override
        public boolean reset(final long nextLogIndex) {
            return delegate.reset(nextLogIndex);
        }
    }
}
