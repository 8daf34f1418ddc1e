package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A three-node SOFAJRaft group in one JVM, on loopback, each node's Raft log a Walden log, running a
 * replicated counter: replicated writes, the leader stopped and a new one elected, the old leader
 * restarted from its Walden log, and a follower that fell behind catching up. No acknowledged
 * increment may be lost, and every node must end with the same value.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicatedCounterTest {
    private static final String GROUP = "walden-counter";
    private static final long WAIT_MS = 30_000;

    @TempDir
    Path tempDir;

    private final List<Member> members = new ArrayList<>();
    private Configuration configuration;
    // Notified whenever a counter applies entries or a node becomes or stops being leader: the test
    // waits on it for what it expects, not by polling.
    private final Object changes = new Object();
    // Guarded by changes: how many changes were reported.
    private long changeCount;

    /** The state machine: a counter that adds each entry's 8-byte delta, and tells the test of changes. */
    final class Counter extends StateMachineAdapter {
        final AtomicLong value = new AtomicLong();

        @Override
        public void onApply(final Iterator iterator) {
            while (iterator.hasNext()) {
                value.addAndGet(iterator.getData().getLong(0));
                if (iterator.done() != null) {
                    iterator.done().run(Status.OK());
                }
                iterator.next();
            }
            changed();
        }

        @Override
        public void onLeaderStart(final long term) {
            super.onLeaderStart(term);
            changed();
        }

        @Override
        public void onLeaderStop(final Status status) {
            super.onLeaderStop(status);
            changed();
        }
    }

    private void changed() {
        synchronized (changes) {
            changeCount++;
            changes.notifyAll();
        }
    }

    /** One node: its address, directories, state machine and running service. */
    final class Member {
        final PeerId peer;
        final Path directory;
        Counter counter;
        RaftGroupService service;
        Node node;

        Member(final PeerId peer, final Path directory) {
            this.peer = peer;
            this.directory = directory;
        }

        void start() {
            counter = new Counter();
            final NodeOptions options = new NodeOptions();
            options.setElectionTimeoutMs(1000);
            options.setInitialConf(configuration);
            options.setFsm(counter);
            options.setLogUri(directory.resolve("log").toString());
            options.setRaftMetaUri(directory.resolve("meta").toString());
            options.setServiceFactory(new WaldenJRaftServiceFactory(dir -> WalConfig.builder(dir)
                    .segmentCapacityBytes(1 << 20)
                    .bufferCapacityBytes(256 * 1024)
                    .maxRecordBytes(64 * 1024)
                    .build()));
            service = new RaftGroupService(GROUP, peer, options);
            node = service.start();
        }

        void stop() throws InterruptedException {
            service.shutdown();
            service.join();
            service = null;
            node = null;
        }

        boolean running() {
            return service != null;
        }
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        for (final Member member : members) {
            if (member.running()) {
                member.stop();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * Waits until a condition holds, woken by every change a state machine reports. The condition is
     * evaluated outside the monitor (it asks jraft's nodes, whose threads report changes under it);
     * the change count taken before each evaluation keeps a change reported in between from being
     * missed.
     */
    private void await(final String what, final BooleanSupplier condition) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (true) {
            final long seen;
            synchronized (changes) {
                seen = changeCount;
            }
            if (condition.getAsBoolean()) {
                return;
            }
            synchronized (changes) {
                while (changeCount == seen) {
                    final long remainingNs = deadlineNs - System.nanoTime();
                    if (remainingNs <= 0) {
                        throw new AssertionError("not within " + WAIT_MS + " ms: " + what);
                    }
                    TimeUnit.NANOSECONDS.timedWait(changes, remainingNs);
                }
            }
        }
    }

    private Member leader() throws InterruptedException {
        final AtomicReference<Member> leader = new AtomicReference<>();
        await("a leader is elected", () -> {
            for (final Member member : members) {
                if (member.running() && member.node.isLeader()) {
                    leader.set(member);
                    return true;
                }
            }
            return false;
        });
        return leader.get();
    }

    /** Applies increments through the leader, retrying on a leader change; returns how many were acknowledged. */
    private long increment(final int count) throws InterruptedException {
        long acknowledged = 0;
        while (acknowledged < count) {
            final Member leader = leader();
            final CountDownLatch done = new CountDownLatch(1);
            final AtomicReference<Status> status = new AtomicReference<>();
            final ByteBuffer data = ByteBuffer.allocate(Long.BYTES).putLong(0, 1);
            leader.node.apply(new Task(data, s -> {
                status.set(s);
                done.countDown();
            }));
            assertTrue(done.await(WAIT_MS, TimeUnit.MILLISECONDS), "an increment was never answered");
            if (status.get().isOk()) {
                acknowledged++;
            }
        }
        return acknowledged;
    }

    private void awaitAll(final long value) throws InterruptedException {
        for (final Member member : members) {
            if (member.running()) {
                await(
                        member.peer + " reaches " + value + " (at " + member.counter.value.get() + ")",
                        () -> member.counter.value.get() == value);
            }
        }
    }

    @Test
    void shouldLoseNoCommittedWriteThroughALeaderChangeARestartAndACatchUp() throws Exception {
        configuration = new Configuration();
        for (int i = 0; i < 3; i++) {
            final PeerId peer = new PeerId("127.0.0.1", freePort());
            configuration.addPeer(peer);
            members.add(new Member(peer, tempDir.resolve("node-" + i)));
        }
        members.forEach(Member::start);

        long total = increment(100);
        awaitAll(total);

        // The leader stops; the other two elect a new one and go on.
        final Member oldLeader = leader();
        oldLeader.stop();
        final Member newLeader = leader();
        assertTrue(newLeader != oldLeader);
        total += increment(100);
        awaitAll(total);

        // The old leader restarts from its Walden log and catches up.
        oldLeader.start();
        awaitAll(total);

        // A follower falls behind while stopped, then catches up.
        final Member leader = leader();
        final Member follower = members.stream()
                .filter(m -> m != leader && m.running())
                .findFirst()
                .orElse(null);
        assertNotNull(follower);
        follower.stop();
        total += increment(100);
        follower.start();
        awaitAll(total);

        assertEquals(300, total);
        for (final Member member : members) {
            assertEquals(total, member.counter.value.get(), member.peer.toString());
        }
    }
}
