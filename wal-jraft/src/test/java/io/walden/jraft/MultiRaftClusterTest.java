package io.walden.jraft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.WalConfig;
import io.walden.jraft.RaftPathsNode.RegisterState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three SOFAJRaft nodes in three child JVMs ({@link MultiRaftChild}), each running {@value
 * #GROUPS_PROPERTY} Raft groups (default {@value #GROUPS_DEFAULT}; a {@code RaftGroupService} per group on
 * one RPC server and jraft's shared timers) whose logs are views of ONE shared group log per node
 * ({@link WaldenGroupsJRaftServiceFactory}); each group runs a register of write ids ({@link
 * RaftPathsNode.Register}).
 *
 * <ol>
 *   <li>writes to every group, and a linearizable read ({@code readIndex}) of every group on every node;
 *   <li><b>snapshot install over a conflicting term</b> in group 0, as {@link RaftPathsClusterTest} does
 *       it: its leader is cut off (the group stopped on the other two nodes), appends writes that never
 *       commit, and stops; the other two start the group again, write over those indexes and snapshot
 *       twice; the cut-off group starts again, installs the snapshot and resets its log over its entry of
 *       the old term;
 *   <li><b>leader kill -9</b>: the node leading the most groups is killed with SIGKILL while writes to
 *       those groups are in flight, the other two go on in every group, and it restarts from what it left
 *       on disk and catches up in every group.
 * </ol>
 *
 * <p>Throughout, no group on any node may enter jraft's ERROR state, apply a write twice, or see its log
 * storage refuse or throw. At the end every group holds the same register on every node, with every
 * acknowledged write of that group and no write the cut-off leader appended alone; and each node's shared
 * log reopens with every group's entries contiguous up to its applied index.
 *
 * <p>The children run with jraft's process-wide executors unbounded ({@link #JRAFT_EXECUTORS}): with jraft's
 * defaults a burst of writes to 100 groups on 2 cores can make jraft drop a leader's replication wake-up, and
 * the group's writes are never answered. An unanswered write is not re-sent (a refused one is, under a new
 * id): every write sent to a running node must be answered, acknowledged or refused. On a failure the message
 * names the writes a running node did not answer, the nodes leading their groups and how each node describes
 * the first three of those groups (jraft's {@code Node.describe}: replicators, log manager, ballot box), and
 * {@code target/multi-raft-failures/<time>/} keeps each child's thread dump and standard error (jraft's
 * warnings and errors, through slf4j-simple), whose errors and last lines are printed.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class MultiRaftClusterTest {
    /** The system property with the number of Raft groups per node. */
    static final String GROUPS_PROPERTY = "walden.jraft.groups";

    static final int GROUPS_DEFAULT = 100;
    private static final long WAIT_MS = 120_000;
    private static final int ISOLATED_WRITES = 24;
    private static final int KILL_AFTER_ACKS = 20;

    /**
     * jraft's process-wide executors in the children, made never to refuse a task. jraft 1.4.1 runs steps of
     * every group on two pools with no queue, a maximum of threads and an abort policy: the group executor
     * ({@code ThreadPoolsFactory}, max(64, 2 x cores) threads, property {@code
     * jraft.closure.threadpool.size.max}) and the RPC closure executor ({@code RpcUtils}, max(100, 5 x
     * cores), {@code jraft.rpc.closure.threadpool.size.max}). A refused task is a RejectedExecutionException
     * thrown into the jraft thread that submitted it, and jraft loses what the task was to do. With 100
     * groups per process on 2 cores a burst of writes (one to each group) reaches the group executor's
     * maximum: {@code LogManagerImpl.appendEntries} on a leader wakes its replicators on that pool, and a
     * refusal there drops the replicators' waiters (already taken out of the wait map) and the batch's own
     * disk write. The group then keeps its leader and its heartbeats but never replicates nor commits
     * again, and its writes are never answered (sofa-jraft issue 1271; a refusal on the RPC pool stops a
     * replicator's heartbeats for good, issue 1274). With no maximum both are cached pools: a thread per
     * task running at once, idle ones gone after 60 s.
     */
    static final List<String> JRAFT_EXECUTORS = List.of(
            "-Djraft.closure.threadpool.size.max=" + Integer.MAX_VALUE,
            "-Djraft.rpc.closure.threadpool.size.max=" + Integer.MAX_VALUE);

    @TempDir
    Path tempDir;

    private final int groups = Integer.getInteger(GROUPS_PROPERTY, GROUPS_DEFAULT);
    private final List<Member> members = new ArrayList<>();
    private Configuration configuration;
    private String childClassPath;

    // Notified on every line a child writes; the test waits on it, never by sleeping.
    private final Object changes = new Object();
    // Guarded by changes.
    private long changeCount;
    private final List<String> failures = new ArrayList<>();

    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicLong nextToken = new AtomicLong(1);
    // Write id -> group.
    private final Map<Long, Integer> groupOf = new ConcurrentHashMap<>();
    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<Long> answered = ConcurrentHashMap.newKeySet();
    private final Set<Long> doomed = ConcurrentHashMap.newKeySet();
    // Write id -> the node it was sent to.
    private final Map<Long, Member> sentTo = new ConcurrentHashMap<>();
    private final StringBuilder timeline = new StringBuilder();
    private long startNs;
    private boolean passed;

    /** A node: its child JVM and what it reported per group. */
    final class Member {
        final int number;
        final PeerId peer;
        final Path directory;
        Process process;
        OutputStream commands;
        Thread reader;
        volatile boolean ready;
        volatile boolean gone = true;
        // Kill after this many more acknowledged writes (0: not armed). Reader thread after arming.
        volatile int killAfterAcks;
        // Guarded by changes, per group.
        final boolean[] leader = new boolean[groups];
        final long[] applied = new long[groups];
        final long[] snapshotSaves = new long[groups];
        // Test thread: the groups stopped on this node.
        final boolean[] stopped = new boolean[groups];
        final List<List<long[]>> resets = new ArrayList<>();
        final List<List<long[]>> snapshotLoads = new ArrayList<>();
        final Map<String, String> replies = new HashMap<>();

        Member(final int number, final PeerId peer, final Path directory) {
            this.number = number;
            this.peer = peer;
            this.directory = directory;
            for (int g = 0; g < groups; g++) {
                resets.add(new ArrayList<>());
                snapshotLoads.add(new ArrayList<>());
            }
        }

        void start() throws IOException {
            synchronized (changes) {
                java.util.Arrays.fill(leader, false);
                java.util.Arrays.fill(applied, 0);
                java.util.Arrays.fill(snapshotSaves, 0);
                resets.forEach(List::clear);
                snapshotLoads.forEach(List::clear);
            }
            ready = false;
            gone = false;
            final List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m",
                    "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1",
                    "-XX:-UsePerfData",
                    "-Xss512k"));
            command.addAll(JRAFT_EXECUTORS);
            command.addAll(List.of(
                    // jraft's warnings and errors go to the child's standard error (kept on a failure).
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-Dorg.slf4j.simpleLogger.showDateTime=true",
                    "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                    "-cp",
                    childClassPath,
                    MultiRaftChild.class.getName(),
                    configuration.toString(),
                    peer.toString(),
                    directory.toString(),
                    Integer.toString(groups)));
            process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.appendTo(
                            tempDir.resolve("child-" + number + ".stderr").toFile()))
                    .start();
            commands = process.getOutputStream();
            reader = new Thread(this::read, "multi-raft-child-" + number);
            reader.setDaemon(true);
            reader.start();
        }

        boolean alive() {
            return !gone && process != null && process.isAlive();
        }

        private void read() {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("@@ ")) {
                        on(line.substring(3));
                    }
                }
            } catch (final IOException ex) {
                // The pipe broke with the child.
            } finally {
                gone = true;
                synchronized (changes) {
                    java.util.Arrays.fill(leader, false);
                }
                changed();
            }
        }

        private void on(final String line) {
            final String[] words = line.split(" ", 4);
            if (words[0].equals("ACK")) {
                final long id = Long.parseLong(words[2]);
                final boolean ok = words[3].equals("OK");
                if (ok) {
                    acknowledged.add(id);
                }
                answered.add(id);
                if (ok && killAfterAcks > 0 && --killAfterAcks == 0) {
                    kill();
                }
            } else if (words[0].equals("READY")) {
                ready = true;
            } else if (words[0].equals("RE")) {
                synchronized (changes) {
                    replies.put(
                            words[1],
                            line.substring(("RE " + words[1]).length()).trim());
                }
            } else if (words[0].equals("EV")) {
                event(Integer.parseInt(words[1]), line.substring(("EV " + words[1] + " ").length()));
            }
            changed();
        }

        private void event(final int group, final String event) {
            final String[] fields = event.split(" ");
            synchronized (changes) {
                if (group < 0) {
                    failures.add(this + ": " + event);
                    return;
                }
                switch (fields[0]) {
                    case "APPLIED" -> applied[group] = Long.parseLong(fields[1]);
                    case "LEADER" -> leader[group] = true;
                    case "FOLLOWER" -> leader[group] = false;
                    case "SNAPLOAD" -> {
                        snapshotLoads.get(group).add(new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
                        applied[group] = Long.parseLong(fields[3]);
                    }
                    case "RESET" -> {
                        resets.get(group).add(new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
                        if (!Boolean.parseBoolean(fields[3])) {
                            failures.add(this + " group " + group + ": " + event);
                        }
                    }
                    case "PREFIX", "SUFFIX" -> {
                        if (!Boolean.parseBoolean(fields[2])) {
                            failures.add(this + " group " + group + ": " + event);
                        }
                    }
                    case "SNAPSAVE" -> snapshotSaves[group]++;
                    case "ERROR", "DUP", "SHORT", "THROW" -> failures.add(this + " group " + group + ": " + event);
                    default -> {
                        // APPENDED and the like: only a change.
                    }
                }
            }
        }

        void send(final String command) {
            try {
                commands.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
                commands.flush();
            } catch (final IOException ex) {
                // The child is gone.
            }
        }

        /** Sends a command with a new token and waits for its answer. */
        String query(final String command) throws InterruptedException {
            final String token = Long.toString(nextToken.getAndIncrement());
            send(command + " " + token);
            await(this + " answers " + command, () -> {
                synchronized (changes) {
                    return replies.containsKey(token) || !alive();
                }
            });
            synchronized (changes) {
                final String reply = replies.remove(token);
                assertNotNull(reply, this + " died before it answered " + command);
                return reply;
            }
        }

        /** Like {@link #query}, for a failure's report: never fails, gives up after {@code timeoutMs}. */
        String tryQuery(final String command, final long timeoutMs) {
            final String token = Long.toString(nextToken.getAndIncrement());
            send(command + " " + token);
            try {
                awaitUpTo(
                        timeoutMs,
                        () -> {
                            synchronized (changes) {
                                return replies.containsKey(token) || !alive();
                            }
                        },
                        false);
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            synchronized (changes) {
                final String reply = replies.remove(token);
                return reply != null ? reply : "no answer within " + timeoutMs + " ms";
            }
        }

        void kill() {
            process.toHandle().destroyForcibly();
        }

        int awaitExit() throws InterruptedException {
            if (!process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS)) {
                kill();
                fail(this + " did not exit");
            }
            reader.join(WAIT_MS);
            return process.exitValue();
        }

        boolean leads(final int group) {
            synchronized (changes) {
                return alive() && leader[group];
            }
        }

        long applied(final int group) {
            synchronized (changes) {
                return applied[group];
            }
        }

        @Override
        public String toString() {
            return "node " + number + " (" + peer + ")";
        }
    }

    private void changed() {
        synchronized (changes) {
            changeCount++;
            changes.notifyAll();
        }
    }

    private void mark(final String phase) {
        timeline.append(String.format(
                "%s %.1fs; ", phase, (System.nanoTime() - startNs) / (double) TimeUnit.SECONDS.toNanos(1)));
    }

    private void await(final String what, final BooleanSupplier condition) throws InterruptedException {
        if (!awaitUpTo(WAIT_MS, condition)) {
            fail("not within " + WAIT_MS + " ms: " + what + "; timeline " + timeline + unansweredWrites());
        }
    }

    /** Waits until a condition holds, woken by every change; a node's failure fails the test at once. */
    private boolean awaitUpTo(final long timeoutMs, final BooleanSupplier condition) throws InterruptedException {
        return awaitUpTo(timeoutMs, condition, true);
    }

    private boolean awaitUpTo(final long timeoutMs, final BooleanSupplier condition, final boolean failFast)
            throws InterruptedException {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            final long seen;
            final List<String> failed;
            synchronized (changes) {
                failed = failFast ? List.copyOf(failures) : List.of();
                seen = changeCount;
            }
            if (!failed.isEmpty()) {
                fail("a node failed: " + failed + "; timeline " + timeline + unansweredWrites());
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

    private Member leaderOf(final int group) throws InterruptedException {
        final Member[] leader = new Member[1];
        await("group " + group + " has a leader", () -> {
            for (final Member member : members) {
                if (member.leads(group)) {
                    leader[0] = member;
                    return true;
                }
            }
            return false;
        });
        return leader[0];
    }

    /**
     * For a failure's report: the writes sent to a node still running and not answered, the nodes that
     * lead their groups, and how the nodes of the first of those groups describe them.
     */
    private String unansweredWrites() {
        final List<Long> ids = sentTo.entrySet().stream()
                .filter(sent ->
                        !answered.contains(sent.getKey()) && sent.getValue().alive())
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        if (ids.isEmpty()) {
            return "";
        }
        final StringBuilder report =
                new StringBuilder("; ").append(ids.size()).append(" writes unanswered by a running node:");
        final Set<Integer> inGroups = new java.util.LinkedHashSet<>();
        for (final long id : ids.subList(0, Math.min(ids.size(), 20))) {
            final int group = groupOf.get(id);
            inGroups.add(group);
            report.append(" write ")
                    .append(id)
                    .append(" to group ")
                    .append(group)
                    .append(" sent to node ")
                    .append(sentTo.get(id).number)
                    .append(" (leaders now:");
            for (final Member member : members) {
                if (member.leads(group)) {
                    report.append(" node ").append(member.number);
                }
            }
            report.append(");");
        }
        inGroups.stream().limit(3).forEach(group -> {
            for (final Member member : members) {
                if (member.alive()) {
                    report.append("\n  group ")
                            .append(group)
                            .append(" on ")
                            .append(member)
                            .append(": ")
                            .append(member.tryQuery("D " + group, 10_000));
                }
            }
        });
        return report.toString();
    }

    private void sendWrite(final Member to, final int group, final long id) {
        sentTo.put(id, to);
        to.send("W " + group + " " + id);
    }

    private long newWrite(final int group) {
        final long id = nextId.getAndIncrement();
        groupOf.put(id, group);
        return id;
    }

    /** Writes to each of some groups through its leader until {@code count} writes of each are acknowledged. */
    private void write(final List<Integer> toGroups, final int count) throws InterruptedException {
        final int[] acked = new int[groups];
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (toGroups.stream().anyMatch(g -> acked[g] < count)) {
            assertTrue(System.nanoTime() < deadlineNs, "writes not acknowledged in time; timeline " + timeline);
            final Map<Long, Integer> batch = new HashMap<>();
            for (final int group : toGroups) {
                if (acked[group] < count) {
                    final long id = newWrite(group);
                    batch.put(id, group);
                    sendWrite(leaderOf(group), group, id);
                }
            }
            await("writes are answered", () -> answered.containsAll(batch.keySet()));
            batch.forEach((id, group) -> acked[group] += acknowledged.contains(id) ? 1 : 0);
        }
    }

    private List<Integer> allGroups() {
        final List<Integer> all = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            all.add(g);
        }
        return all;
    }

    private long acknowledgedOf(final int group) {
        return acknowledged.stream().filter(id -> groupOf.get(id) == group).count();
    }

    /** Waits until every running node applied as many writes as the others in each group, all acknowledged ones. */
    private void awaitConverged(final List<Integer> inGroups, final String when) throws InterruptedException {
        final Map<Integer, Long> ackedPerGroup = new HashMap<>();
        for (final int group : inGroups) {
            ackedPerGroup.put(group, acknowledgedOf(group));
        }
        await(when + ": every running node applied the same writes in every group", () -> {
            for (final int group : inGroups) {
                long count = -1;
                for (final Member member : members) {
                    if (member.alive() && !member.stopped[group]) {
                        final long applied = member.applied(group);
                        if (count >= 0 && applied != count) {
                            return false;
                        }
                        count = applied;
                    }
                }
                if (count < ackedPerGroup.get(group)) {
                    return false;
                }
            }
            return true;
        });
    }

    /** A linearizable read of each group on each running node: it holds every write acknowledged before. */
    private void checkLinearizableReads(final List<Integer> inGroups, final String when) throws InterruptedException {
        final Set<Long> before = Set.copyOf(acknowledged);
        for (final Member member : members) {
            if (!member.alive()) {
                continue;
            }
            for (final int group : inGroups) {
                if (member.stopped[group]) {
                    continue;
                }
                String reply = null;
                for (int attempt = 0; attempt < 10; attempt++) {
                    leaderOf(group);
                    reply = member.query("R " + group);
                    if (reply.startsWith("OK ")) {
                        break;
                    }
                }
                assertTrue(
                        reply.startsWith("OK "),
                        "no linearizable read of group " + group + " on " + member + " " + when + ": " + reply);
                final RegisterState state =
                        RegisterState.decode(List.of(reply.substring(3).split(" ")));
                for (final long id : before) {
                    if (groupOf.get(id) == group) {
                        assertTrue(
                                state.ids().get((int) id),
                                "a linearizable read of group " + group + " on " + member + " " + when
                                        + " misses acknowledged write " + id);
                    }
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * Stops the children. After a failure, first keeps what explains it in {@code
     * target/multi-raft-failures/<time>/} (the @TempDir goes): each running child's thread dump ({@code
     * jcmd Thread.print}) and each child's standard error (jraft's warnings and errors), whose errors and
     * last lines are printed too.
     */
    @AfterEach
    void stopAll() throws InterruptedException, IOException {
        final Path kept = passed
                ? null
                : Path.of(System.getProperty("basedir", "."), "target", "multi-raft-failures")
                        .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        if (kept != null) {
            Files.createDirectories(kept);
        }
        for (final Member member : members) {
            if (member.process == null) {
                continue;
            }
            if (kept != null && member.process.isAlive()) {
                dumpThreads(member, kept.resolve("node-" + member.number + ".threads"));
            }
            member.kill();
            member.process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS);
            if (kept != null) {
                keepStandardError(member, kept.resolve("node-" + member.number + ".stderr"));
            }
        }
        if (kept != null) {
            System.err.println("MultiRaftClusterTest kept the nodes' thread dumps and standard error in " + kept);
        }
        System.out.println("MultiRaftClusterTest [" + groups + " groups per node] " + timeline);
    }

    private static void dumpThreads(final Member member, final Path file) throws InterruptedException {
        try {
            final Process jcmd = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            Long.toString(member.process.pid()),
                            "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(file.toFile())
                    .start();
            if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
            }
        } catch (final IOException ex) {
            System.err.println("no thread dump of " + member + ": " + ex);
        }
    }

    /** Copies a child's standard error, and prints its first errors and its last lines. */
    private void keepStandardError(final Member member, final Path file) {
        try {
            Files.copy(tempDir.resolve("child-" + member.number + ".stderr"), file);
            final List<String> lines = Files.readAllLines(file);
            // An error line of jraft's log, and the line after it (the exception).
            final List<String> errors = new ArrayList<>();
            for (int i = 0; i < lines.size() && errors.size() < 40; i++) {
                if (lines.get(i).contains(" ERROR ")) {
                    errors.addAll(lines.subList(i, Math.min(i + 2, lines.size())));
                }
            }
            System.err.println("standard error of " + member + ", its first errors:\n" + String.join("\n", errors)
                    + "\n... and its last lines:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        } catch (final IOException ex) {
            System.err.println("no standard error of " + member + ": " + ex);
        }
    }

    @Test
    void manyGroupsOnOneSharedLogPerNodeKeepEveryAcknowledgedWriteThroughASnapshotInstallAndALeaderKill()
            throws Exception {
        startNs = System.nanoTime();
        childClassPath = System.getProperty("java.class.path");
        configuration = new Configuration();
        for (int i = 0; i < 3; i++) {
            final PeerId peer = new PeerId("127.0.0.1", freePort());
            configuration.addPeer(peer);
            members.add(new Member(i, peer, tempDir.resolve("node-" + i)));
        }
        for (final Member member : members) {
            member.start();
        }
        await("every node started its groups", () -> members.stream().allMatch(member -> member.ready));
        mark("started");
        for (int g = 0; g < groups; g++) {
            leaderOf(g);
        }
        mark("every group has a leader");

        // 1. Writes to every group, linearizable reads everywhere.
        write(allGroups(), 3);
        awaitConverged(allGroups(), "after the first writes");
        checkLinearizableReads(allGroups(), "after the first writes");
        mark("replicated");

        // 2. Snapshot install over a conflicting term in group 0.
        conflictingSnapshotInstall(0);

        // 3. Kill -9 the node that leads the most groups, with writes in flight.
        killTheBusiestLeaderAndRestartIt();

        // 4. Every group holds the same register on every node, equal to its acknowledged history.
        checkRegisters();
        final StringBuilder stats = new StringBuilder();
        final long[] appliedIndexes = new long[groups * members.size()];
        for (final Member member : members) {
            final String[] words = member.query("STATS").split(" ");
            stats.append(member.number)
                    .append(": ")
                    .append(words[0])
                    .append(" threads, ")
                    .append(words[1])
                    .append(" ms CPU, ")
                    .append(words[2])
                    .append(" MiB heap; ");
            for (int g = 0; g < groups; g++) {
                final String[] state = member.query("S " + g).split(" ");
                appliedIndexes[member.number * groups + g] = Long.parseLong(state[4]);
            }
        }
        mark("stats " + stats);
        for (final Member member : members) {
            member.send("Q");
            assertEquals(0, member.awaitExit(), member + " did not stop cleanly");
        }
        for (final Member member : members) {
            checkReopens(member, appliedIndexes);
        }
        mark("reopened");
        passed = true;
    }

    private void conflictingSnapshotInstall(final int group) throws Exception {
        final Member cutOff = leaderOf(group);
        final List<Member> others =
                members.stream().filter(member -> member != cutOff).toList();
        await(
                cutOff + " has every entry of group " + group + " on disk",
                () -> index(cutOff, group)[1] == index(cutOff, group)[2]);
        final long committedLast = index(cutOff, group)[1];
        cutOff.query("ET " + group + " " + 5 * MultiRaftNode.ELECTION_TIMEOUT_MS);
        for (final Member other : others) {
            other.query("STOP " + group);
            other.stopped[group] = true;
        }
        assertTrue(
                index(cutOff, group)[3] == 1,
                cutOff + " stepped down in group " + group + " before it could append alone");
        final List<Long> isolated = new ArrayList<>();
        for (int i = 0; i < ISOLATED_WRITES; i++) {
            final long id = newWrite(group);
            isolated.add(id);
            doomed.add(id);
            sendWrite(cutOff, group, id);
        }
        await(cutOff + " appends its own writes", () -> {
            final long[] index = index(cutOff, group);
            return index[1] >= committedLast + ISOLATED_WRITES
                    || index[3] == 0 && answered.containsAll(isolated) && index[1] == index[2];
        });
        final long isolatedLast = index(cutOff, group)[1];
        final long isolatedTerm = Long.parseLong(cutOff.query("TERM " + group + " " + isolatedLast));
        assertTrue(
                isolatedLast - committedLast >= ISOLATED_WRITES / 2,
                "the cut-off leader appended only to " + isolatedLast + " past " + committedLast);
        cutOff.query("STOP " + group);
        cutOff.stopped[group] = true;
        await("the cut-off leader's writes are answered", () -> answered.containsAll(isolated));
        for (final long id : isolated) {
            assertTrue(!acknowledged.contains(id), "write " + id + " acknowledged without a majority");
        }
        mark("group " + group + " cut off (" + committedLast + " committed, " + isolatedLast + " in term "
                + isolatedTerm + ")");

        for (final Member other : others) {
            other.query("START " + group);
            other.stopped[group] = false;
        }
        for (int round = 0; round < 2; round++) {
            write(List.of(group), 2);
            awaitConverged(List.of(group), "before snapshot " + round);
            checkLinearizableReads(List.of(group), "before snapshot " + round);
            for (final Member other : others) {
                final long saves;
                synchronized (changes) {
                    saves = other.snapshotSaves[group];
                }
                assertEquals("OK", other.query("SNAP " + group), "snapshot of group " + group + " on " + other);
                synchronized (changes) {
                    assertEquals(saves + 1, other.snapshotSaves[group], other + " answered OK without a snapshot");
                }
            }
        }
        final Member newLeader = leaderOf(group);
        final long snapshotIndex = Long.parseLong(newLeader.query("S " + group).split(" ")[4]);
        for (final Member other : others) {
            await(other + " compacts group " + group, () -> index(other, group)[0] > committedLast);
        }
        assertTrue(
                snapshotIndex > committedLast && snapshotIndex <= isolatedLast,
                "the snapshot's index " + snapshotIndex + " must be among the cut-off entries (" + committedLast + ", "
                        + isolatedLast + "]");
        mark("group " + group + " compacted (snapshot at " + snapshotIndex + ")");

        cutOff.query("START " + group);
        cutOff.stopped[group] = false;
        await("the cut-off node installs a snapshot of group " + group + " and resets its log", () -> {
            synchronized (changes) {
                return !cutOff.snapshotLoads.get(group).isEmpty()
                        && !cutOff.resets.get(group).isEmpty();
            }
        });
        write(List.of(group), 10);
        awaitConverged(List.of(group), "after the snapshot install");
        checkLinearizableReads(List.of(group), "after the snapshot install");
        final long[] load;
        final long[] reset;
        synchronized (changes) {
            assertEquals(1, cutOff.snapshotLoads.get(group).size(), "snapshot loads");
            assertEquals(1, cutOff.resets.get(group).size(), "log resets");
            load = cutOff.snapshotLoads.get(group).get(0);
            reset = cutOff.resets.get(group).get(0);
        }
        assertTrue(load[0] > committedLast && load[0] <= isolatedLast, "the installed snapshot's index " + load[0]);
        assertEquals(load[0] + 1, reset[0], "the log is reset to the installed snapshot's index + 1");
        assertEquals(isolatedTerm, reset[1], "the entry the reset replaced at the snapshot's index");
        assertNotEquals(load[1], reset[1], "the cut-off entry's term must conflict with the snapshot's");
        mark("group " + group + " installed (snapshot " + load[0] + " term " + load[1] + " over term " + reset[1]
                + ")");
    }

    /** {@code IDX}: the storage's first and last index, the node's last index, and 1 if it leads. */
    private long[] index(final Member member, final int group) {
        try {
            final String[] words = member.query("IDX " + group).split(" ");
            return new long[] {
                Long.parseLong(words[0]),
                Long.parseLong(words[1]),
                Long.parseLong(words[2]),
                Boolean.parseBoolean(words[3]) ? 1 : 0
            };
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private void killTheBusiestLeaderAndRestartIt() throws Exception {
        Member victim = members.get(0);
        int most = -1;
        for (final Member member : members) {
            int led = 0;
            for (int g = 0; g < groups; g++) {
                led += member.leads(g) ? 1 : 0;
            }
            if (led > most) {
                most = led;
                victim = member;
            }
        }
        final List<Integer> led = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            if (victim.leads(g)) {
                led.add(g);
            }
        }
        final Member killed = victim;
        killed.killAfterAcks = KILL_AFTER_ACKS;
        final List<Long> toVictim = new ArrayList<>();
        while (killed.alive()) {
            for (final int group : led) {
                final long id = newWrite(group);
                toVictim.add(id);
                sendWrite(killed, group, id);
            }
            await(
                    "writes to " + killed + " are answered or it is killed",
                    () -> !killed.alive() || answered.containsAll(toVictim));
        }
        assertEquals(137, killed.awaitExit(), "exit status of the killed leader");
        final long inFlight =
                toVictim.stream().filter(id -> !answered.contains(id)).count();
        mark(killed + " killed as leader of " + led.size() + " groups (" + toVictim.size() + " writes sent, " + inFlight
                + " in flight)");
        write(allGroups(), 1);
        mark("every group written without it");
        killed.start();
        await(killed + " starts again", () -> killed.ready || !killed.alive());
        assertTrue(killed.alive(), killed + " died at restart");
        awaitConverged(allGroups(), "after the killed leader restarted");
        checkLinearizableReads(allGroups(), "after the killed leader restarted");
        mark("restarted");
    }

    private void checkRegisters() throws InterruptedException {
        final Set<Long> appliedAnywhere = new HashSet<>();
        for (int g = 0; g < groups; g++) {
            RegisterState first = null;
            for (final Member member : members) {
                final String[] words = member.query("S " + g).split(" ");
                final RegisterState state = RegisterState.decode(List.of(words).subList(0, 4));
                if (first == null) {
                    first = state;
                } else {
                    assertEquals(first.ids(), state.ids(), member + " holds other writes in group " + g);
                    assertEquals(first.digest(), state.digest(), member + " applied in another order in group " + g);
                }
            }
            assertEquals(first.ids().cardinality(), first.count(), "a write applied twice in group " + g);
            final int group = g;
            for (final long id : acknowledged) {
                if (groupOf.get(id) == group) {
                    assertTrue(first.ids().get((int) id), "acknowledged write " + id + " of group " + g + " is lost");
                }
            }
            first.ids().stream().forEach(id -> {
                assertEquals(group, groupOf.get((long) id), "write " + id + " applied in group " + group);
                assertTrue(!doomed.contains((long) id), "write " + id + " of the cut-off leader applied");
                appliedAnywhere.add((long) id);
            });
        }
        synchronized (changes) {
            assertTrue(failures.isEmpty(), "node failures: " + failures);
        }
        mark(acknowledged.size() + " acknowledged, " + (groupOf.size() - acknowledged.size()) + " unknown, "
                + appliedAnywhere.size() + " applied");
    }

    /** Reopens a stopped node's shared log: every group's entries contiguous up to its applied index. */
    private void checkReopens(final Member member, final long[] appliedIndexes) {
        try (WaldenGroupsJRaftServiceFactory reopened = WaldenGroupsJRaftServiceFactory.open(
                io.walden.groups.GroupLogConfig.builder(WalConfig.builder(member.directory.resolve("shared-log"))
                                .segmentCapacityBytes(4 << 20)
                                .bufferCapacityBytes(512 * 1024)
                                .maxRecordBytes(128 * 1024)
                                .build())
                        .build())) {
            for (int g = 0; g < groups; g++) {
                final LogStorage log = reopened.createLogStorage("group-" + g, null);
                assertTrue(
                        log.init(RaftPathsNode.storageOptions()), "group " + g + " of " + member + " does not reopen");
                try {
                    final long last = log.getLastLogIndex();
                    assertTrue(
                            last >= appliedIndexes[member.number * groups + g],
                            "group " + g + " of " + member + " ends at " + last + ", before its applied index");
                    long term = 0;
                    for (long index = log.getFirstLogIndex(); index <= last; index++) {
                        final LogEntry entry = log.getEntry(index);
                        assertNotNull(entry, "group " + g + " of " + member + " misses entry " + index);
                        assertTrue(entry.getId().getTerm() >= term, "terms go back at " + index);
                        term = entry.getId().getTerm();
                    }
                } finally {
                    log.shutdown();
                }
            }
        }
    }
}
