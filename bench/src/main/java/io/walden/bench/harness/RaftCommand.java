package io.walden.bench.harness;

import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.option.NodeOptions;
import io.walden.WalConfig;
import io.walden.bench.BenchFiles;
import io.walden.jraft.WaldenJRaftServiceFactory;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Replicated puts through a three-node SOFAJRaft group in this JVM (loopback RPC, each node's files
 * in its own directory on the same disk), with each node's Raft log on Walden ({@code
 * WaldenJRaftServiceFactory}) or on jraft's default {@code RocksDBLogStorage} (RocksDB with {@code
 * sync=true}). Client threads put a value through the leader and wait for it to be committed and
 * applied; the command prints puts per second and the latency of a put.
 *
 * <p>Both stores make an entry durable before it counts toward the quorum; everything else (RPC,
 * Raft meta storage, the state machine) is jraft's and the same for both. Three nodes on one disk
 * means three logs syncing on the same device, as in the setup; on a real cluster each node
 * has its own.
 *
 * <p>Output: a line {@code @@RAFT storage,clients,valueBytes,putsPerSec,p50us,p99us,puts,seconds}.
 *
 * <p><b>Threading:</b> the main thread sets up and measures; client threads are daemons it starts.
 */
@Command(
        name = "raft",
        mixinStandardHelpOptions = true,
        description = "Replicated puts/s and latency of a 3-node SOFAJRaft group in this JVM, its log on Walden or"
                + " on jraft's RocksDB log storage.")
public final class RaftCommand implements Callable<Integer> {
    private static final String GROUP = "walden-bench";

    @Option(names = "--storage", required = true, description = "walden or rocksdb")
    String storage;

    @Option(names = "--clients", defaultValue = "1", description = "client threads (default 1)")
    int clients;

    @Option(names = "--value-bytes", defaultValue = "128", description = "bytes per put (default 128)")
    int valueBytes;

    @Option(names = "--warmup-ms", defaultValue = "2000", description = "warm-up (default 2000)")
    long warmupMs;

    @Option(names = "--measure-ms", defaultValue = "5000", description = "measured time (default 5000)")
    long measureMs;

    @Option(
            names = "--segment-mib",
            defaultValue = "64",
            description = "Walden's segment capacity in MiB (default 64, Walden's default)")
    int segmentMib;

    @Option(names = "--dir", description = "directory for the three nodes; default a fresh one under target/")
    Path dir;

    @Spec
    CommandSpec spec;

    /** Creates the command; picocli sets the options. */
    public RaftCommand() {}

    /** Counts what it applies; answers each put; counts down a latch when its node becomes leader. */
    static final class Store extends StateMachineAdapter {
        final AtomicLong applied = new AtomicLong();
        private final CountDownLatch leaderStarted;

        Store(final CountDownLatch leaderStarted) {
            this.leaderStarted = leaderStarted;
        }

        @Override
        public void onLeaderStart(final long term) {
            super.onLeaderStart(term);
            leaderStarted.countDown();
        }

        @Override
        public void onApply(final Iterator iterator) {
            while (iterator.hasNext()) {
                applied.incrementAndGet();
                if (iterator.done() != null) {
                    iterator.done().run(Status.OK());
                }
                iterator.next();
            }
        }
    }

    @Override
    public Integer call() throws Exception {
        if (!storage.equals("walden") && !storage.equals("rocksdb")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--storage must be walden or rocksdb");
        }
        if (clients < 1 || valueBytes < 8 || measureMs < 1 || warmupMs < 0 || segmentMib < 1 || segmentMib > 1024) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--clients and --measure-ms must be at least 1, --value-bytes at least 8, --segment-mib 1 to 1024");
        }
        final Path directory = dir != null ? dir : BenchFiles.freshDirectory("raft-" + storage + "-");
        final List<RaftGroupService> services = new ArrayList<>();
        try {
            final Configuration configuration = new Configuration();
            final List<PeerId> peers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                final PeerId peer = new PeerId("127.0.0.1", freePort());
                peers.add(peer);
                configuration.addPeer(peer);
            }
            final List<Node> nodes = new ArrayList<>();
            final CountDownLatch leaderStarted = new CountDownLatch(1);
            for (int i = 0; i < 3; i++) {
                // RocksDB creates its own directory, not the parents.
                final Path nodeDirectory = Files.createDirectories(directory.resolve("node-" + i));
                final NodeOptions options = new NodeOptions();
                options.setElectionTimeoutMs(1000);
                options.setInitialConf(configuration);
                options.setFsm(new Store(leaderStarted));
                options.setLogUri(nodeDirectory.resolve("log").toString());
                options.setRaftMetaUri(nodeDirectory.resolve("meta").toString());
                if (storage.equals("walden")) {
                    final int segmentBytes = segmentMib << 20;
                    options.setServiceFactory(new WaldenJRaftServiceFactory(d -> WalConfig.builder(d)
                            .segmentCapacityBytes(segmentBytes)
                            .build()));
                }
                final RaftGroupService service = new RaftGroupService(GROUP, peers.get(i), options);
                services.add(service);
                nodes.add(service.start());
            }
            final Node leader = awaitLeader(nodes, leaderStarted);
            final long[] result = measure(leader);
            final Histogram latency = histogram;
            final double seconds = measureMs / 1000.0;
            System.out.printf(
                    Locale.ROOT,
                    "%s log storage, %d client(s), %d B puts: %,.0f puts/s, p50 %.0f us, p99 %.0f us%n",
                    storage,
                    clients,
                    valueBytes,
                    result[0] / seconds,
                    latency.getValueAtPercentile(50) / 1000.0,
                    latency.getValueAtPercentile(99) / 1000.0);
            System.out.printf(
                    Locale.ROOT,
                    "@@RAFT %s,%d,%d,%.1f,%.1f,%.1f,%d,%.3f%n",
                    storage,
                    clients,
                    valueBytes,
                    result[0] / seconds,
                    latency.getValueAtPercentile(50) / 1000.0,
                    latency.getValueAtPercentile(99) / 1000.0,
                    result[0],
                    seconds);
            return 0;
        } finally {
            for (final RaftGroupService service : services) {
                service.shutdown();
            }
            for (final RaftGroupService service : services) {
                service.join();
            }
            if (dir == null) {
                BenchFiles.deleteRecursively(directory);
            }
        }
    }

    private Histogram histogram;

    /** Runs the clients through the warm-up and the measured window; returns the puts in the window. */
    private long[] measure(final Node leader) throws InterruptedException {
        final long startNs = System.nanoTime();
        final long measureFromNs = startNs + TimeUnit.MILLISECONDS.toNanos(warmupMs);
        final long endNs = measureFromNs + TimeUnit.MILLISECONDS.toNanos(measureMs);
        final Histogram[] histograms = new Histogram[clients];
        final long[] counts = new long[clients];
        final Thread[] threads = new Thread[clients];
        final AtomicLong failures = new AtomicLong();
        for (int c = 0; c < clients; c++) {
            final int client = c;
            histograms[c] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            threads[c] = new Thread(
                    () -> {
                        final ByteBuffer value = ByteBuffer.allocate(valueBytes);
                        while (true) {
                            final long beginNs = System.nanoTime();
                            if (beginNs >= endNs) {
                                return;
                            }
                            final CountDownLatch done = new CountDownLatch(1);
                            final boolean[] ok = new boolean[1];
                            leader.apply(new Task(value.duplicate(), status -> {
                                ok[0] = status.isOk();
                                done.countDown();
                            }));
                            try {
                                if (!done.await(10, TimeUnit.SECONDS)) {
                                    failures.incrementAndGet();
                                    return;
                                }
                            } catch (final InterruptedException ex) {
                                return;
                            }
                            final long finishNs = System.nanoTime();
                            if (!ok[0]) {
                                failures.incrementAndGet();
                            } else if (beginNs >= measureFromNs && finishNs <= endNs) {
                                histograms[client].recordValue(
                                        Math.min(finishNs - beginNs, TimeUnit.SECONDS.toNanos(10)));
                                counts[client]++;
                            }
                        }
                    },
                    "raft-client-" + c);
            threads[c].setDaemon(true);
            threads[c].start();
        }
        for (final Thread thread : threads) {
            thread.join();
        }
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " put(s) failed or timed out (a leader change?)");
        }
        histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long total = 0;
        for (int c = 0; c < clients; c++) {
            histogram.add(histograms[c]);
            total += counts[c];
        }
        return new long[] {total};
    }

    /** Waits for a state machine to report that its node leads, and returns that node. */
    private static Node awaitLeader(final List<Node> nodes, final CountDownLatch leaderStarted)
            throws InterruptedException {
        if (leaderStarted.await(30, TimeUnit.SECONDS)) {
            for (final Node node : nodes) {
                if (node.isLeader()) {
                    return node;
                }
            }
        }
        throw new IllegalStateException("no leader elected within 30 s, or it lost its leadership at once");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
