package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.State;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.jraft.RaftPathsNode.RegisterState;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A three-node SOFAJRaft group on loopback walking the paths a real Raft group walks, every node's log
 * a {@link WaldenLogStorage} (or, with {@code -Dwalden.jraft.storage=rocksdb}, jraft's own {@code
 * RocksDBLogStorage}, to show that the test holds against a correct store), running a replicated
 * register of write ids ({@link RaftPathsNode}):
 *
 * <ol>
 *   <li>replicated writes and linearizable reads ({@code readIndex}) on every node;
 *   <li><b>snapshot install over a conflicting term</b>: the leader F is cut off (its lease
 *       lengthened, the other two stop), appends writes that can never commit (term t, indexes past
 *       the committed ones), and stops; the other two restart, elect a leader in a newer term, write
 *       over those indexes, snapshot twice (jraft compacts the log to the first snapshot's index on
 *       the second), so that the leader's log starts after the last index F shares with it; F
 *       restarts, cannot be caught up from the log, installs the snapshot, and since its own entry at
 *       the snapshot's last index has an older term, jraft's {@code LogManagerImpl.setSnapshot} calls
 *       {@code LogStorage.reset(lastIncludedIndex + 1)} and appends from there. The test checks that
 *       this path was taken (a {@code RESET} of F's log at the snapshot's index + 1 over an entry of
 *       F's old term) and that F catches up;
 *   <li><b>leader kill -9</b>: a follower is restarted in a child JVM ({@link RaftPathsChild}),
 *       leadership is transferred to it, it is killed with SIGKILL while writes are in flight, the
 *       other two go on, and it restarts from its crash image and catches up.
 * </ol>
 *
 * <p>Throughout, no node may enter jraft's ERROR state ({@code StateMachine.onError}), apply a write
 * twice, or see its log storage refuse or throw on an append, a truncation or a reset: any of these
 * fails the test at once. At the end every node holds the same register, applied in the same order,
 * which holds every acknowledged write (its task done with OK), only writes that were submitted (a
 * write that failed or was never answered may or may not be applied), and none of the writes the
 * cut-off leader appended on its own; and every node's log reopens ({@code init} returns true) with
 * contiguous entries up to at least the node's last applied index.
 *
 * <p>Against jraft's own store: {@code mvn -B -o -q -pl wal-jraft test -Dtest=RaftPathsClusterTest
 * -Dwalden.jraft.storage=rocksdb} (the child JVM gets the same store).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftPathsClusterTest {
    private static final long WAIT_MS = 20_000;
    // Writes the cut-off leader appends on its own; the new leader's entries must stay below them.
    private static final int ISOLATED_WRITES = 24;
    // Writes in flight to the child leader, and acknowledgements after which it is killed.
    private static final int CHILD_IN_FLIGHT = 16;
    private static final int KILL_AFTER_ACKS = 10;

    @TempDir
    Path tempDir;

    private final String storageKind = RaftPathsNode.storageKind();
    private final List<Member> members = new ArrayList<>();
    private Configuration configuration;

    // Notified on every event a node reports, every write answered, every child line: the test waits on
    // it for what it expects, never by sleeping.
    private final Object changes = new Object();
    // Guarded by changes.
    private long changeCount;
    // Guarded by changes: ERROR, duplicate applies, refused appends or truncations, by node.
    private final List<String> failures = new ArrayList<>();

    // Write ids (test thread). A write is submitted, then answered (any status) or never answered.
    private int nextId = 1;
    private final Set<Long> submitted = ConcurrentHashMap.newKeySet();
    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<Long> answered = ConcurrentHashMap.newKeySet();
    // Writes the test knows can never commit: the cut-off leader's own.
    private final Set<Long> doomed = new HashSet<>();

    private final StringBuilder timeline = new StringBuilder();
    private long startNs;
    // Set when the test went through: otherwise the children's standard error is printed.
    private boolean passed;
    // The child JVMs' class path (copyChildClassPath).
    private String childClassPath;

    /** A node's register and last applied index. */
    record Observed(RegisterState register, long appliedIndex) {}

    /** One member of the group: in the test JVM ({@link #local}) or in a child JVM ({@link #child}). */
    final class Member {
        final int number;
        final PeerId peer;
        final Path directory;
        // Test thread.
        RaftPathsNode local;
        Child child;
        // Guarded by changes: what the running incarnation reported.
        boolean leaderReported;
        long applied;
        long lastAppended;
        long firstKept;
        long snapshotSaves;
        final List<long[]> resets = new ArrayList<>();
        final List<long[]> snapshotLoads = new ArrayList<>();

        Member(final int number, final PeerId peer, final Path directory) {
            this.number = number;
            this.peer = peer;
            this.directory = directory;
        }

        void startLocal() {
            forget();
            local = RaftPathsNode.start(storageKind, configuration, peer, directory, this::on);
        }

        void stopLocal() throws InterruptedException {
            final RaftPathsNode node = local;
            local = null;
            node.stop();
            changed();
        }

        /** Stops the node in this JVM and starts it again, on the same port, in a child JVM. */
        void moveToChild() throws InterruptedException, IOException {
            final RaftPathsNode node = local;
            local = null;
            node.stopReleasingPort();
            changed();
            startChild();
        }

        void startChild() throws IOException {
            forget();
            child = new Child(this);
        }

        private void forget() {
            synchronized (changes) {
                leaderReported = false;
                applied = 0;
                lastAppended = 0;
                firstKept = 0;
                snapshotSaves = 0;
                resets.clear();
                snapshotLoads.clear();
            }
        }

        boolean running() {
            return local != null || (child != null && child.alive());
        }

        boolean isLeader() {
            if (local != null) {
                return local.node().isLeader();
            }
            synchronized (changes) {
                return child != null && child.alive() && leaderReported;
            }
        }

        long applied() {
            synchronized (changes) {
                return applied;
            }
        }

        void write(final long id) {
            if (local != null) {
                local.write(id, status -> answer(id, status.isOk()));
            } else {
                child.send("W " + id);
            }
        }

        /** Parses one event of this node (see {@link RaftPathsNode}); any thread. */
        void on(final String event) {
            final String[] fields = event.split(" ");
            synchronized (changes) {
                switch (fields[0]) {
                    case "APPLIED" -> applied = Long.parseLong(fields[1]);
                    case "APPENDED" -> lastAppended = Long.parseLong(fields[1]);
                    case "LEADER" -> leaderReported = true;
                    case "FOLLOWER" -> leaderReported = false;
                    case "SNAPLOAD" -> {
                        snapshotLoads.add(new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
                        applied = Long.parseLong(fields[3]);
                    }
                    case "RESET" -> {
                        resets.add(new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
                        if (!Boolean.parseBoolean(fields[3])) {
                            failures.add(this + ": " + event);
                        }
                    }
                    case "PREFIX", "SUFFIX" -> {
                        if (fields[0].equals("PREFIX")) {
                            firstKept = Long.parseLong(fields[1]);
                        }
                        if (!Boolean.parseBoolean(fields[2])) {
                            failures.add(this + ": " + event);
                        }
                    }
                    case "SNAPSAVE" -> snapshotSaves++;
                    case "ERROR", "DUP", "SHORT", "THROW" -> failures.add(this + ": " + event);
                    default -> {
                        // APPENDED and the like: only a change.
                    }
                }
                changeCount++;
                changes.notifyAll();
            }
        }

        /** @return the register, and the last applied index, of the running node. */
        Observed observe() throws InterruptedException {
            if (local != null) {
                return new Observed(local.state(), local.node().getLastAppliedLogIndex());
            }
            return child.queryState();
        }

        @Override
        public String toString() {
            return "node " + number + " (" + peer + (child != null && local == null ? ", child JVM" : "") + ")";
        }
    }

    /** A member's node in a child JVM, with the thread that reads its lines. */
    final class Child {
        private final Member member;
        private final Process process;
        private final OutputStream commands;
        private final Path stderr;
        private final Thread reader;
        private volatile boolean gone;
        private volatile boolean ready;
        // Kill after this many more acknowledgements (0: not armed). Reader thread after arming.
        private volatile int killAfterAcks;
        // Guarded by changes.
        private long stateReplies;
        private Observed lastState;

        Child(final Member member) throws IOException {
            this.member = member;
            this.stderr = tempDir.resolve("child-" + member.number + ".stderr");
            final List<String> command = List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx160m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData",
                    "-ea",
                    "-Dwalden.checks=true",
                    "-cp",
                    childClassPath,
                    RaftPathsChild.class.getName(),
                    storageKind,
                    configuration.toString(),
                    member.peer.toString(),
                    member.directory.toString());
            this.process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                    .start();
            this.commands = process.getOutputStream();
            this.reader = new Thread(this::read, "raft-paths-child-" + member.number);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (!line.startsWith("@@ ")) {
                        continue;
                    }
                    final String event = line.substring(3);
                    if (event.startsWith("ACK ")) {
                        final String[] fields = event.split(" ", 3);
                        final boolean ok = fields[2].equals("OK");
                        answer(Long.parseLong(fields[1]), ok);
                        if (ok && killAfterAcks > 0 && --killAfterAcks == 0) {
                            kill();
                        }
                    } else if (event.equals("READY")) {
                        ready = true;
                        changed();
                    } else if (event.startsWith("STATE ")) {
                        final List<String> fields = List.of(event.split(" "));
                        final Observed state =
                                new Observed(RegisterState.decode(fields.subList(1, 5)), Long.parseLong(fields.get(5)));
                        synchronized (changes) {
                            lastState = state;
                            stateReplies++;
                            changeCount++;
                            changes.notifyAll();
                        }
                    } else {
                        member.on(event);
                    }
                }
            } catch (final IOException ex) {
                // The pipe broke with the child: everything it wrote before was read.
            } finally {
                gone = true;
                synchronized (changes) {
                    member.leaderReported = false;
                }
                changed();
            }
        }

        boolean alive() {
            return !gone && process.isAlive();
        }

        boolean ready() {
            return ready;
        }

        /** Sends a command; a dead child (a kill races with the test) ignores it. */
        void send(final String command) {
            try {
                commands.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
                commands.flush();
            } catch (final IOException ex) {
                // The child is gone; what it never read stays unanswered.
            }
        }

        void killAfter(final int acknowledgements) {
            killAfterAcks = acknowledgements;
        }

        /** SIGKILL. Any thread; idempotent. */
        void kill() {
            process.toHandle().destroyForcibly();
        }

        /** @return the exit status, once the child is gone and its last lines are read. */
        int awaitExit() throws InterruptedException {
            if (!process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS)) {
                kill();
                fail("the child JVM of " + member + " did not exit");
            }
            reader.join(WAIT_MS);
            return process.exitValue();
        }

        Observed queryState() throws InterruptedException {
            final long before;
            synchronized (changes) {
                before = stateReplies;
            }
            send("S");
            await(member + " reports its state", () -> {
                synchronized (changes) {
                    return stateReplies > before;
                }
            });
            synchronized (changes) {
                return lastState;
            }
        }

        String stderrTail() {
            try {
                final List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
            } catch (final IOException ex) {
                return "(no standard error: " + ex + ")";
            }
        }
    }

    private void changed() {
        synchronized (changes) {
            changeCount++;
            changes.notifyAll();
        }
    }

    private void answer(final long id, final boolean ok) {
        if (ok) {
            acknowledged.add(id);
        }
        answered.add(id);
        changed();
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        final boolean failed = !passed;
        for (final Member member : members) {
            if (member.local != null) {
                member.stopLocal();
            }
            if (member.child != null) {
                member.child.kill();
                member.child.process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS);
                if (failed) {
                    System.err.println("standard error of " + member + "'s child JVM:\n" + member.child.stderrTail());
                }
            }
        }
        System.out.println("RaftPathsClusterTest [" + storageKind + "] " + timeline);
    }

    private void mark(final String phase) {
        timeline.append(String.format(
                "%s %.1fs; ", phase, (System.nanoTime() - startNs) / (double) TimeUnit.SECONDS.toNanos(1)));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Waits until a condition holds (see {@link #awaitUpTo}); fails the test if it does not in time. */
    private void await(final String what, final BooleanSupplier condition) throws InterruptedException {
        if (!awaitUpTo(what, WAIT_MS, condition)) {
            fail("not within " + WAIT_MS + " ms: " + what + "; " + summary());
        }
    }

    /**
     * Waits until a condition holds, woken by every change. The condition is evaluated outside the
     * monitor (it asks jraft's nodes, whose threads report changes under it); the change count taken
     * before each evaluation keeps a change reported in between from being missed. A node's failure
     * (ERROR and the like) fails the test at once.
     *
     * @return whether the condition held within the time.
     */
    private boolean awaitUpTo(final String what, final long timeoutMs, final BooleanSupplier condition)
            throws InterruptedException {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            final long seen;
            synchronized (changes) {
                if (!failures.isEmpty()) {
                    fail("a node failed while waiting until " + what + ": " + failures + "; " + summary());
                }
                seen = changeCount;
            }
            if (condition.getAsBoolean()) {
                return true;
            }
            synchronized (changes) {
                while (changeCount == seen) {
                    final long remainingNs = deadlineNs - System.nanoTime();
                    if (remainingNs <= 0) {
                        return false;
                    }
                    TimeUnit.NANOSECONDS.timedWait(changes, remainingNs);
                }
            }
        }
    }

    private String summary() {
        final StringBuilder text = new StringBuilder("storage " + storageKind + "; ");
        for (final Member member : members) {
            synchronized (changes) {
                text.append(member)
                        .append(member.running() ? "" : " stopped")
                        .append(": applied ")
                        .append(member.applied)
                        .append(", last appended ")
                        .append(member.lastAppended)
                        .append(", prefix truncated to ")
                        .append(member.firstKept)
                        .append(", leader ")
                        .append(member.leaderReported)
                        .append("; ");
            }
        }
        return text.append("timeline ").append(timeline).toString();
    }

    private Member leader() throws InterruptedException {
        final AtomicReference<Member> leader = new AtomicReference<>();
        await("a leader is elected", () -> {
            for (final Member member : members) {
                if (member.running() && member.isLeader()) {
                    leader.set(member);
                    return true;
                }
            }
            return false;
        });
        return leader.get();
    }

    private long newWrite() {
        final long id = nextId++;
        submitted.add(id);
        return id;
    }

    /**
     * Writes through the leader until a number of writes are acknowledged, in batches answered before
     * the next; a write that fails (a leader change) is of unknown outcome and not retried.
     */
    private void write(final int count) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        int acked = 0;
        while (acked < count) {
            if (System.nanoTime() > deadlineNs) {
                fail("only " + acked + " of " + count + " writes acknowledged in " + WAIT_MS + " ms; " + summary());
            }
            final Member leader = leader();
            final List<Long> batch = new ArrayList<>();
            for (int i = 0; i < Math.min(8, count - acked); i++) {
                final long id = newWrite();
                batch.add(id);
                leader.write(id);
            }
            await("writes " + batch + " are answered", () -> answered.containsAll(batch));
            acked += (int) batch.stream().filter(acknowledged::contains).count();
        }
    }

    /** Waits until every running node applied as many writes as the others, all the acknowledged ones at least. */
    private void awaitConverged(final String when) throws InterruptedException {
        await(when + ": every running node applied the same writes", () -> {
            long count = -1;
            for (final Member member : members) {
                if (member.running()) {
                    final long applied = member.applied();
                    if (count >= 0 && applied != count) {
                        return false;
                    }
                    count = applied;
                }
            }
            return count >= acknowledged.size();
        });
    }

    /**
     * A linearizable read ({@code readIndex}) on every node in this JVM: its register must hold every
     * write acknowledged before the read began.
     */
    private void checkLinearizableReads(final String when) throws InterruptedException {
        for (final Member member : members) {
            if (member.local == null) {
                continue;
            }
            final RaftPathsNode node = member.local;
            final Set<Long> before = Set.copyOf(acknowledged);
            Status lastFailure = null;
            for (int attempt = 0; ; attempt++) {
                if (attempt == 10) {
                    fail("no linearizable read on " + member + " " + when + ": " + lastFailure + "; " + summary());
                }
                leader();
                final AtomicReference<Object> result = new AtomicReference<>();
                node.node().readIndex(new byte[0], new ReadIndexClosure() {
                    @Override
                    public void run(final Status status, final long index, final byte[] requestContext) {
                        result.set(status.isOk() ? node.state() : status);
                        changed();
                    }
                });
                await("a read on " + member + " is answered", () -> result.get() != null);
                if (result.get() instanceof RegisterState state) {
                    for (final long id : before) {
                        assertTrue(
                                state.ids().get((int) id),
                                "a linearizable read on " + member + " " + when + " misses acknowledged write " + id);
                    }
                    break;
                }
                lastFailure = (Status) result.get();
            }
        }
    }

    /** Waits until a member's child JVM started and applied as many writes as a leader; fails if it died. */
    private void awaitCaughtUp(final Member member, final Member leader) throws InterruptedException {
        await(member + " starts in a child JVM and catches up", () -> {
            if (!member.child.alive()) {
                fail(member + "'s child JVM died:\n" + member.child.stderrTail());
            }
            return member.child.ready() && member.applied() == leader.applied();
        });
    }

    /**
     * The class path of the child JVMs: the test JVM's, its class directories copied into the temporary
     * directory when the test starts, so that a build recompiling this module meanwhile does not take
     * classes away from a child.
     */
    private String copyChildClassPath() throws IOException {
        final List<String> entries = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            final Path path = Path.of(entry);
            if (Files.isDirectory(path)) {
                final Path copy = tempDir.resolve("child-classes").resolve(Integer.toString(entries.size()));
                try (Stream<Path> files = Files.walk(path)) {
                    for (final Path file : (Iterable<Path>) files::iterator) {
                        final Path target = copy.resolve(path.relativize(file).toString());
                        if (Files.isDirectory(file)) {
                            Files.createDirectories(target);
                        } else {
                            Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                }
                entries.add(copy.toString());
            } else {
                entries.add(entry);
            }
        }
        final String child = RaftPathsChild.class.getName().replace('.', '/') + ".class";
        assertTrue(
                entries.stream().anyMatch(entry -> Files.isRegularFile(Path.of(entry, child))),
                "the child's main class is not on the class path " + entries);
        return String.join(File.pathSeparator, entries);
    }

    /**
     * Has a node take a snapshot, and checks that it did: jraft answers OK without one when the applied
     * index it reads equals its last snapshot's, which it updates only after the state machine's
     * {@code onApply} returns (a linearizable read before, answered once the applied index passed the
     * read index, rules that out).
     */
    private void snapshot(final Member member) throws InterruptedException {
        final long saves;
        synchronized (changes) {
            saves = member.snapshotSaves;
        }
        final AtomicReference<Status> result = new AtomicReference<>();
        member.local.node().snapshot(status -> {
            result.set(status);
            changed();
        });
        await("a snapshot of " + member, () -> result.get() != null);
        assertTrue(result.get().isOk(), "the snapshot of " + member + " failed: " + result.get());
        synchronized (changes) {
            assertEquals(saves + 1, member.snapshotSaves, member + " answered OK without a snapshot");
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedWriteThroughASnapshotInstallOverAConflictingTermAndALeaderKill() throws Exception {
        startNs = System.nanoTime();
        childClassPath = copyChildClassPath();
        configuration = new Configuration();
        for (int i = 0; i < 3; i++) {
            final PeerId peer = new PeerId("127.0.0.1", freePort());
            configuration.addPeer(peer);
            members.add(new Member(i, peer, tempDir.resolve("node-" + i)));
        }

        // 1. Replicated writes, linearizable reads on every node.
        members.forEach(Member::startLocal);
        write(40);
        awaitConverged("after the first writes");
        checkLinearizableReads("after the first writes");
        mark("replicated");

        // 2. Snapshot install over a conflicting term.
        final Member cutOff = leader();
        final List<Member> others =
                members.stream().filter(member -> member != cutOff).toList();
        final RaftPathsNode.RecordingLogStorage cutOffLog = cutOff.local.storage();
        await(
                cutOff + " has every entry on disk",
                () -> cutOffLog.getLastLogIndex() == cutOff.local.node().getLastLogIndex());
        final long committedLast = cutOffLog.getLastLogIndex();
        // A longer lease keeps it leader while the other two stop (heartbeats stay well inside their
        // election timeout).
        cutOff.local.node().resetElectionTimeoutMs(5 * RaftPathsNode.ELECTION_TIMEOUT_MS);
        for (final Member other : others) {
            other.stopLocal();
        }
        assertTrue(
                cutOff.local.node().isLeader(),
                cutOff + " stepped down before it could append writes of its own; " + summary());
        final List<Long> isolated = new ArrayList<>();
        for (int i = 0; i < ISOLATED_WRITES; i++) {
            final long id = newWrite();
            isolated.add(id);
            doomed.add(id);
            cutOff.write(id);
        }
        await(
                cutOff + " appends its own writes to its log",
                () -> cutOffLog.getLastLogIndex() >= committedLast + ISOLATED_WRITES
                        || !cutOff.local.node().isLeader()
                                && answered.containsAll(isolated)
                                && cutOffLog.getLastLogIndex()
                                        == cutOff.local.node().getLastLogIndex());
        final long isolatedLast = cutOffLog.getLastLogIndex();
        final long isolatedTerm = cutOffLog.termAt(isolatedLast);
        assertTrue(
                isolatedLast - committedLast >= ISOLATED_WRITES / 2,
                cutOff + " appended only up to " + isolatedLast + " past the committed " + committedLast
                        + "; the scenario needs it ahead of the new leader's snapshot");
        cutOff.stopLocal();
        await("the cut-off leader's writes are answered", () -> answered.containsAll(isolated));
        for (final long id : isolated) {
            assertTrue(!acknowledged.contains(id), "write " + id + " acknowledged without a majority");
        }
        mark("cut off (log to " + committedLast + " committed, " + isolatedLast + " in term " + isolatedTerm + ")");

        // The other two elect a leader in a newer term and write over those indexes; two snapshots each
        // compact their logs to the first one.
        for (final Member other : others) {
            other.startLocal();
        }
        for (int round = 0; round < 2; round++) {
            write(2);
            awaitConverged("before snapshot " + round);
            checkLinearizableReads("before snapshot " + round);
            for (final Member other : others) {
                snapshot(other);
            }
        }
        final Member newLeader = leader();
        final long snapshotIndex = newLeader.local.node().getLastAppliedLogIndex();
        for (final Member other : others) {
            await(
                    other + " compacts its log past the committed index " + committedLast,
                    () -> other.local.storage().getFirstLogIndex() > committedLast);
        }
        assertTrue(
                snapshotIndex > committedLast && snapshotIndex <= isolatedLast,
                "the snapshot's index " + snapshotIndex + " must be among the cut-off entries (" + committedLast + ", "
                        + isolatedLast + "]");
        mark("compacted (snapshot at " + snapshotIndex + ")");

        // The cut-off node restarts: it must install the snapshot and reset its log over its entry of
        // the old term at the snapshot's index.
        cutOff.startLocal();
        await("the restarted " + cutOff + " installs a snapshot and resets its log", () -> {
            synchronized (changes) {
                return !cutOff.snapshotLoads.isEmpty() && !cutOff.resets.isEmpty();
            }
        });
        write(10);
        awaitConverged("after the snapshot install");
        checkLinearizableReads("after the snapshot install");
        final long[] load;
        final long[] reset;
        synchronized (changes) {
            assertEquals(1, cutOff.snapshotLoads.size(), "snapshot loads of " + cutOff);
            assertEquals(1, cutOff.resets.size(), "log resets of " + cutOff);
            load = cutOff.snapshotLoads.get(0);
            reset = cutOff.resets.get(0);
        }
        assertTrue(
                load[0] > committedLast && load[0] <= isolatedLast,
                "the installed snapshot's index " + load[0] + " must be among the cut-off entries");
        assertEquals(load[0] + 1, reset[0], "the log is reset to the installed snapshot's index + 1");
        assertEquals(isolatedTerm, reset[1], "the entry the reset replaced at the snapshot's index");
        assertNotEquals(load[1], reset[1], "the cut-off entry's term must conflict with the snapshot's");
        mark("installed (snapshot " + load[0] + " term " + load[1] + " over term " + reset[1] + ")");

        // 3. Leader kill -9: a follower moves to a child JVM, becomes leader, and is killed while writes
        // are in flight.
        final Member before = leader();
        final Member killed =
                members.stream().filter(member -> member != before).findFirst().orElseThrow();
        killed.moveToChild();
        awaitCaughtUp(killed, before);
        mark("child up");
        for (int attempt = 0; !killed.isLeader(); attempt++) {
            assertTrue(attempt < 5, "leadership never moved to " + killed + "; " + summary());
            final Member current = leader();
            if (current == killed) {
                break;
            }
            // Refused (the child is not caught up yet) or not: the next attempt waits an election's time.
            current.local.node().transferLeadershipTo(killed.peer);
            awaitUpTo(killed + " becomes leader", 5 * RaftPathsNode.ELECTION_TIMEOUT_MS, killed::isLeader);
        }
        final Child victim = killed.child;
        victim.killAfter(KILL_AFTER_ACKS);
        final List<Long> toChild = new ArrayList<>();
        final long killDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        String killedAs = "leader";
        while (victim.alive()) {
            assertTrue(System.nanoTime() < killDeadlineNs, "the child leader was never killed; " + summary());
            if (!killed.isLeader()) {
                // It lost leadership first (a slow machine): it is killed all the same, as a follower.
                killedAs = "follower (it had lost leadership)";
                victim.kill();
                break;
            }
            if (toChild.stream().filter(id -> !answered.contains(id)).count() < CHILD_IN_FLIGHT) {
                final long id = newWrite();
                toChild.add(id);
                killed.write(id);
            } else {
                awaitUpTo(
                        "a write to the child leader is answered",
                        WAIT_MS,
                        () -> !victim.alive()
                                || !killed.isLeader()
                                || toChild.stream()
                                                .filter(id -> !answered.contains(id))
                                                .count()
                                        < CHILD_IN_FLIGHT);
            }
        }
        assertEquals(137, victim.awaitExit(), "exit status of the killed child leader");
        final long inFlight =
                toChild.stream().filter(id -> !answered.contains(id)).count();
        mark("killed as " + killedAs + " (" + toChild.size() + " writes sent, " + inFlight + " in flight)");
        write(20);
        killed.startChild();
        awaitCaughtUp(killed, leader());
        awaitConverged("after the killed leader restarted");
        checkLinearizableReads("after the killed leader restarted");
        mark("restarted");

        // 4. The same register everywhere, equal to the acknowledged history.
        final List<Observed> states = new ArrayList<>();
        for (final Member member : members) {
            states.add(member.observe());
            if (member.local != null) {
                assertNotEquals(State.STATE_ERROR, member.local.node().getNodeState(), member.toString());
            }
        }
        final RegisterState state = states.get(0).register();
        for (int i = 1; i < states.size(); i++) {
            final RegisterState other = states.get(i).register();
            assertEquals(state.ids(), other.ids(), members.get(i) + " holds other writes than " + members.get(0));
            assertEquals(state.count(), other.count(), members.get(i) + "'s count");
            assertEquals(state.sum(), other.sum(), members.get(i) + "'s sum");
            assertEquals(state.digest(), other.digest(), members.get(i) + " applied in another order");
        }
        final BitSet ids = state.ids();
        assertEquals(ids.cardinality(), state.count(), "a write applied twice");
        assertEquals(ids.stream().asLongStream().sum(), state.sum(), "the sum of the writes applied");
        for (final long id : acknowledged) {
            assertTrue(ids.get((int) id), "acknowledged write " + id + " is lost");
        }
        ids.stream().forEach(id -> {
            assertTrue(submitted.contains((long) id), "write " + id + " applied but never submitted");
            assertTrue(!doomed.contains((long) id), "write " + id + " of the cut-off leader applied");
        });
        final long unknown = submitted.size() - acknowledged.size();
        final long unknownApplied = submitted.stream()
                .filter(id -> !acknowledged.contains(id) && ids.get(id.intValue()))
                .count();
        synchronized (changes) {
            assertTrue(failures.isEmpty(), "node failures: " + failures);
        }
        mark(acknowledged.size() + " acknowledged, " + unknown + " unknown (" + unknownApplied + " applied)");

        // Every node's log reopens.
        final long[] appliedIndexes = new long[members.size()];
        for (int i = 0; i < members.size(); i++) {
            appliedIndexes[i] = states.get(i).appliedIndex();
            final Member member = members.get(i);
            if (member.local != null) {
                member.stopLocal();
            } else {
                member.child.kill();
                member.child.awaitExit();
            }
        }
        for (int i = 0; i < members.size(); i++) {
            checkReopens(members.get(i), appliedIndexes[i]);
        }
        mark("reopened");
        passed = true;
    }

    /** Reopens a stopped node's log: init succeeds, entries are contiguous, and reach the applied index. */
    private void checkReopens(final Member member, final long appliedIndex) {
        final LogStorage log =
                RaftPathsNode.newStorage(storageKind, member.directory.resolve("log"), new RaftOptions());
        assertTrue(log.init(RaftPathsNode.storageOptions()), "the log of " + member + " does not reopen");
        try {
            final long first = log.getFirstLogIndex();
            final long last = log.getLastLogIndex();
            assertTrue(
                    last >= appliedIndex,
                    "the reopened log of " + member + " ends at " + last + ", before its applied index "
                            + appliedIndex);
            long term = 0;
            for (long index = first; index <= last; index++) {
                final LogEntry entry = log.getEntry(index);
                assertNotNull(entry, "the reopened log of " + member + " misses entry " + index);
                assertEquals(index, entry.getId().getIndex(), "the entry at " + index + " of " + member);
                assertTrue(entry.getId().getTerm() >= term, "terms go back at " + index + " in " + member);
                term = entry.getId().getTerm();
            }
        } finally {
            log.shutdown();
        }
    }
}
