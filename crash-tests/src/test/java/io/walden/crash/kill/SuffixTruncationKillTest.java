package io.walden.crash.kill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.crash.ChildJvm;
import io.walden.crash.CrashTally;
import io.walden.testing.TestFiles;
import io.walden.testing.TestRecords;
import io.walden.uring.UringSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIGKILL of a child JVM in the middle of {@link Wal#truncateAfter} on real files: a log of several
 * segments is copied afresh for each cycle, the child truncates it after a record in its second
 * segment, and the parent kills it at a random moment after it announced the call (from at once to a
 * little past the time a truncation takes). Whatever the moment, the reopened log must hold every
 * record of the log before or exactly the kept ones, never anything between; the kept ones if the child
 * reported that the call returned; and the next record must go past every position the old log used.
 * A kill keeps the page cache, so this checks the order of the steps against a process crash; {@code
 * SuffixTruncationPowerLossTest} checks it against power loss.
 */
final class SuffixTruncationKillTest {
    private static final int RECORDS = 600;
    private static final int KEPT = 60;
    private static final int CYCLES = 12;

    @ParameterizedTest
    @ValueSource(strings = {"nio", "uring"})
    void killDuringTruncateAfterLeavesTheOldLogOrTheNewOne(final String backend) throws Exception {
        if (backend.startsWith("uring")) {
            final String unavailable = UringSupport.unavailableReason();
            assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        }
        final Path root = freshRoot("suffix-" + backend);
        final Path childClasses = root.resolve("classes");
        final Path template = root.resolve("template");
        final SplittableRandom random = new SplittableRandom(backend.hashCode());
        final long[] lsns = writeTemplate(template, backend, random);
        assertTrue(
                KillSetup.segmentBase(lsns[RECORDS - 1]) - KillSetup.segmentBase(lsns[KEPT - 1])
                        >= 4L * KillSetup.SEGMENT_CAPACITY_BYTES,
                "the truncation should discard several segments");
        // How long a truncation takes here, from the announcement: the kills spread over a bit more.
        final long truncationNs = timeOneTruncation(root, template, backend, childClasses, lsns[KEPT - 1]);
        int oldLogs = 0;
        int newLogs = 0;
        int returned = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            final Path directory = root.resolve("cycle-" + cycle);
            copy(template, directory);
            final long delayNs = (long) (random.nextDouble() * 1.2 * truncationNs);
            final boolean reportedReturn =
                    killDuring(directory, backend, childClasses, lsns[KEPT - 1], delayNs, root.resolve("child.err"))
                                    .next
                            >= 0;
            final int count = check(
                    directory,
                    backend,
                    lsns,
                    reportedReturn,
                    "cycle " + cycle + ", kill " + delayNs / 1000 + " us after the announcement");
            if (count == RECORDS) {
                oldLogs++;
            } else {
                newLogs++;
            }
            returned += reportedReturn ? 1 : 0;
            (backend.startsWith("uring") ? CrashTally.KILLS_URING : CrashTally.KILLS_NIO).incrementAndGet();
            TestFiles.deleteRecursively(directory);
        }
        System.out.println("kill during truncateAfter (" + backend + "): " + CYCLES + " kills over "
                + truncationNs / 1000 + " us of truncation: " + oldLogs + " old logs, " + newLogs
                + " truncated ones (" + returned + " after the call returned)");
        assertTrue(newLogs > returned || oldLogs > 0, "no kill landed before the truncation finished");
        TestFiles.deleteRecursively(root);
    }

    /**
     * The same against an open log ({@link Wal#truncateAfter(long)}) while the child appends {@code
     * SYNCED} records: whatever the moment of the kill, the reopened log holds the old records and
     * every acknowledged append, or exactly the kept records followed by the acknowledged appends at
     * or after the position where the log continues (all of them, never one before it); never a mix.
     */
    @ParameterizedTest
    @ValueSource(strings = {"nio", "uring"})
    void killDuringOnlineTruncateAfterKeepsEveryAcknowledgedAppendAfterTheCut(final String backend) throws Exception {
        if (backend.startsWith("uring")) {
            final String unavailable = UringSupport.unavailableReason();
            assumeTrue(unavailable == null, () -> "skipped: io_uring is not available here: " + unavailable);
        }
        final Path root = freshRoot("suffix-online-" + backend);
        final Path childClasses = root.resolve("classes");
        final Path template = root.resolve("template");
        final SplittableRandom random = new SplittableRandom(backend.hashCode() * 31L);
        final long[] lsns = writeTemplate(template, backend, random);
        final long truncationNs = timeOneTruncation(root, template, backend, childClasses, lsns[KEPT - 1], ONLINE);
        int oldLogs = 0;
        int newLogs = 0;
        int returned = 0;
        long discardedAppends = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            final Path directory = root.resolve("cycle-" + cycle);
            copy(template, directory);
            // Up to half as long again after the call would return: appends acknowledged after it must survive too.
            final long delayNs = (long) (random.nextDouble() * 1.5 * truncationNs);
            final OnlineRun run = killDuring(
                    directory, backend, childClasses, lsns[KEPT - 1], delayNs, root.resolve("child.err"), ONLINE);
            final String where = "cycle " + cycle + ", kill " + delayNs / 1000 + " us after the announcement";
            final int discarded = checkOnline(directory, backend, lsns, run, where);
            if (discarded < 0) {
                oldLogs++;
            } else {
                newLogs++;
                discardedAppends += discarded;
            }
            returned += run.next >= 0 ? 1 : 0;
            (backend.startsWith("uring") ? CrashTally.KILLS_URING : CrashTally.KILLS_NIO).incrementAndGet();
            TestFiles.deleteRecursively(directory);
        }
        System.out.println("kill during truncateAfter on the open log (" + backend + "): " + CYCLES
                + " kills over " + truncationNs / 1000 + " us of truncation: " + oldLogs + " old logs, " + newLogs
                + " truncated ones (" + returned + " after the call returned; " + discardedAppends
                + " acknowledged appends from before the call discarded)");
        assertTrue(newLogs > returned || oldLogs > 0, "no kill landed before the truncation finished");
        TestFiles.deleteRecursively(root);
    }

    private static final String ONLINE = "online";

    /** An empty directory under target/kill, with the child's classes copied into its "classes". */
    private static Path freshRoot(final String name) throws IOException {
        final Path root =
                Files.createDirectories(Path.of("target", "kill", name)).toAbsolutePath();
        TestFiles.deleteRecursively(root);
        Files.createDirectories(root);
        ChildJvm.copyChildClasses(SuffixTruncationChild.class, root.resolve("classes"));
        return root;
    }

    /** Writes the log every cycle starts from: {@value #RECORDS} tagged SYNCED records; returns their LSNs. */
    private static long[] writeTemplate(final Path template, final String backend, final SplittableRandom random) {
        final long[] lsns = new long[RECORDS];
        try (Wal wal = Wal.open(KillSetup.config(template, backend))) {
            for (int i = 0; i < RECORDS; i++) {
                lsns[i] = wal.append(
                        TestRecords.tagged(0, i, TestRecords.TAG_LENGTH + random.nextInt(3000)), Durability.SYNCED);
            }
        }
        return lsns;
    }

    /**
     * What a child said before it died: its acknowledged appends (online only), and where the log
     * continues if the call returned (else -1).
     */
    private static final class OnlineRun {
        final Map<Integer, Long> acknowledged = new ConcurrentHashMap<>();
        volatile long next = -1;
    }

    /**
     * Runs a child, in a mode ({@link #ONLINE} or none), and kills it a delay after it announces the
     * call; returns what it said before it died.
     */
    private static OnlineRun killDuring(
            final Path directory,
            final String backend,
            final Path childClasses,
            final long lsn,
            final long delayNs,
            final Path stderrFile,
            final String... mode)
            throws Exception {
        final Process child = ChildJvm.start(
                SuffixTruncationChild.class, childClasses, stderrFile, arguments(directory, backend, lsn, mode));
        final OnlineRun run = new OnlineRun();
        final List<String> errors = new ArrayList<>();
        ChildJvm.readLines(child, line -> {
            if (line.startsWith("A ")) {
                final String[] fields = line.split(" ");
                run.acknowledged.put(Integer.parseInt(fields[1]), Long.parseLong(fields[2]));
            } else if (line.startsWith("U ")) {
                // The child's acknowledgements meanwhile wait in the pipe and are read after the kill.
                final long deadlineNs = System.nanoTime() + delayNs;
                while (System.nanoTime() < deadlineNs) {
                    Thread.onSpinWait();
                }
                child.toHandle().destroyForcibly();
            } else if (line.startsWith("u ")) {
                run.next = Long.parseLong(line.substring(2));
            } else if (line.startsWith("E ")) {
                errors.add(line);
            }
        });
        assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not die");
        assertTrue(errors.isEmpty(), () -> "the child failed: " + errors);
        return run;
    }

    private static long timeOneTruncation(
            final Path root,
            final Path template,
            final String backend,
            final Path childClasses,
            final long lsn,
            final String... mode)
            throws Exception {
        final Path directory = root.resolve("timed");
        copy(template, directory);
        final AtomicLong announcedNs = new AtomicLong();
        final AtomicLong returnedNs = new AtomicLong();
        final Process child = ChildJvm.start(
                SuffixTruncationChild.class,
                childClasses,
                root.resolve("child.err"),
                arguments(directory, backend, lsn, mode));
        ChildJvm.readLines(child, line -> {
            if (line.startsWith("U ")) {
                announcedNs.set(System.nanoTime());
            } else if (line.startsWith("u ")) {
                returnedNs.set(System.nanoTime());
            }
        });
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), "the timed truncation failed; see " + root.resolve("child.err"));
        TestFiles.deleteRecursively(directory);
        return Math.max(returnedNs.get() - announcedNs.get(), TimeUnit.MILLISECONDS.toNanos(1));
    }

    private static List<String> arguments(
            final Path directory, final String backend, final long lsn, final String... mode) {
        final List<String> arguments = new ArrayList<>(List.of(directory.toString(), backend, Long.toString(lsn)));
        arguments.addAll(List.of(mode));
        return arguments;
    }

    /**
     * Opens what a killed online child left and checks it; returns how many acknowledged appends the
     * truncation discarded, or -1 if the log is the old one.
     */
    private static int checkOnline(
            final Path directory, final String backend, final long[] lsns, final OnlineRun run, final String where) {
        try (Wal wal = reopen(directory, backend, where)) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            int prefix = 0;
            while (prefix < records.size()
                    && TestRecords.verify(records.get(prefix).payload()).writer() == 0) {
                final TestRecords.Read read = records.get(prefix);
                if (read.lsn() != lsns[prefix]
                        || TestRecords.verify(read.payload()).sequence() != prefix) {
                    throw violation(where, "record " + prefix + " of the old log differs: " + read.lsn());
                }
                prefix++;
            }
            if (prefix != RECORDS && prefix != KEPT) {
                throw violation(
                        where,
                        "the log begins with " + prefix + " of the old records: neither all (" + RECORDS
                                + ") nor the kept ones (" + KEPT + ")");
            }
            if (run.next >= 0 && prefix != KEPT) {
                throw violation(where, "truncateAfter returned, but the log holds all the old records");
            }
            final Map<Integer, Long> present = new HashMap<>();
            long previousSequence = -1;
            for (int i = prefix; i < records.size(); i++) {
                final TestRecords.Read read = records.get(i);
                final TestRecords.Tag tag = TestRecords.verify(read.payload());
                if (tag.writer() != SuffixTruncationChild.ONLINE_WRITER || tag.sequence() <= previousSequence) {
                    throw violation(where, "record at " + read.lsn() + " out of place: " + tag);
                }
                final Long acknowledgedAt = run.acknowledged.get(tag.sequence());
                if (acknowledgedAt != null && acknowledgedAt != read.lsn()) {
                    throw violation(
                            where,
                            "append " + tag + " was acknowledged at " + acknowledgedAt + ", found at " + read.lsn());
                }
                previousSequence = tag.sequence();
                present.put(tag.sequence(), read.lsn());
            }
            // The old log must hold every acknowledged append; the truncated one those at or after the
            // position where it continues (the first one it holds, or where the child was told it does).
            final long continueAt = prefix == RECORDS
                    ? Long.MIN_VALUE
                    : run.next >= 0
                            ? run.next
                            : present.values().stream().min(Long::compare).orElse(Long.MAX_VALUE);
            int discarded = 0;
            for (final Map.Entry<Integer, Long> acknowledged : run.acknowledged.entrySet()) {
                final boolean kept = acknowledged.getValue() >= continueAt;
                if (kept && !present.containsKey(acknowledged.getKey())) {
                    throw violation(
                            where,
                            "the acknowledged SYNCED append " + acknowledged.getKey() + " at " + acknowledged.getValue()
                                    + " is lost (the log continues at " + continueAt + ")");
                }
                if (!kept && present.containsKey(acknowledged.getKey())) {
                    throw violation(
                            where,
                            "append " + acknowledged.getKey() + " at " + acknowledged.getValue() + " lies before "
                                    + continueAt + ", where the log continues, yet it is there");
                }
                discarded += kept ? 0 : 1;
            }
            long used = lsns[RECORDS - 1];
            for (final long lsn : run.acknowledged.values()) {
                used = Math.max(used, lsn);
            }
            final long next = wal.append(new byte[16], Durability.SYNCED);
            if (next <= used) {
                throw violation(where, "the next record got position " + next + ", which the log had used");
            }
            return prefix == RECORDS ? -1 : discarded;
        }
    }

    /** Opens what a killed child left and checks it; returns how many records it holds. */
    private static int check(
            final Path directory, final String backend, final long[] lsns, final boolean returned, final String where) {
        try (Wal wal = reopen(directory, backend, where)) {
            final List<TestRecords.Read> records = TestRecords.replayAll(wal);
            final int count = records.size();
            if (count != RECORDS && count != KEPT) {
                throw violation(
                        where,
                        "the log holds " + count + " records: neither the old log (" + RECORDS
                                + ") nor the truncated one (" + KEPT + ")");
            }
            if (returned && count != KEPT) {
                throw violation(where, "truncateAfter returned, but the log holds all " + count + " records");
            }
            for (int i = 0; i < count; i++) {
                final TestRecords.Read read = records.get(i);
                final TestRecords.Tag tag = TestRecords.verify(read.payload());
                if (read.lsn() != lsns[i] || tag.sequence() != i) {
                    throw violation(where, "record " + i + " differs: " + read.lsn() + " " + tag);
                }
            }
            final long next = wal.append(new byte[16], Durability.SYNCED);
            if (next <= lsns[RECORDS - 1]) {
                throw violation(where, "the next record got position " + next + ", which the old log had used");
            }
            return count;
        }
    }

    /** Opens what a killed child left, under the default policy; a refusal is a violation. */
    private static Wal reopen(final Path directory, final String backend, final String where) {
        try {
            return Wal.open(KillSetup.config(directory, backend));
        } catch (final RuntimeException ex) {
            final AssertionError error = violation(where, "reopening failed under the default policy: " + ex);
            error.initCause(ex);
            throw error;
        }
    }

    private static AssertionError violation(final String where, final String what) {
        CrashTally.VIOLATIONS.incrementAndGet();
        return new AssertionError("SUFFIX TRUNCATION KILL VIOLATION (" + where + "): " + what);
    }

    private static void copy(final Path from, final Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(file)) {
                    Files.copy(file, to.resolve(file.getFileName()));
                }
            }
        }
    }
}
