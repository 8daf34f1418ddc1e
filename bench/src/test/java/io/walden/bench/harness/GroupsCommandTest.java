package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.bench.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The groups command: its options, the batches its writers draw, its result lines, and a short run. */
class GroupsCommandTest {
    @TempDir
    Path directory;

    private static GroupsCommand parse(final String... args) {
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        return (GroupsCommand) result.subcommand().commandSpec().userObject();
    }

    @Test
    void shouldTakeRaftEngineLikeDefaultsAndEveryStore() {
        final GroupsCommand command = parse("groups");
        assertEquals(new GroupsWorkload(100, 4, 1024, 10, 5, 1000, 10_000, 42), command.workload());
        assertEquals(List.of(GroupStoreKind.values()), command.stores());
        final GroupStoreSettings settings = command.settings();
        assertEquals(4 << 20, settings.separateSegmentBytes());
        assertEquals(512 << 10, settings.separateBufferBytes());
        assertEquals(4L << 20, settings.rocksDbWriteBufferBytes());
        assertFalse(settings.separateConcurrent());
    }

    @Test
    void shouldReadEveryOption() {
        final GroupsCommand command = parse(
                "groups",
                "--store",
                "rocksdb-shared",
                "--groups",
                "10000",
                "--writers=8",
                "--entry-bytes=256",
                "--entries-per-batch=20",
                "--groups-per-batch=10",
                "--seconds=3",
                "--warmup-ms=0",
                "--seed=7",
                "--separate-syncs=concurrent");
        assertEquals(new GroupsWorkload(10_000, 8, 256, 20, 10, 0, 3000, 7), command.workload());
        assertEquals(List.of(GroupStoreKind.ROCKSDB_SHARED), command.stores());
        final GroupStoreSettings settings = command.settings();
        assertEquals(1 << 20, settings.separateSegmentBytes());
        assertEquals(64 << 10, settings.separateBufferBytes());
        assertEquals(1L << 20, settings.rocksDbWriteBufferBytes());
        assertTrue(settings.separateConcurrent());
        final GroupStoreSettings one = parse("groups", "--groups=1", "--writers=1", "--groups-per-batch=1")
                .settings();
        assertEquals(64 << 20, one.separateSegmentBytes());
        assertEquals(8 << 20, one.separateBufferBytes());
        assertEquals(128L << 20, one.rocksDbWriteBufferBytes());
    }

    @Test
    void shouldRefuseWhatCannotRun() {
        // A writer draws a batch's groups among its own: 10 groups over 4 writers leaves 2 each.
        assertEquals(2, Main.commandLine().execute("groups", "--groups=10", "--writers=4", "--groups-per-batch=3"));
        assertEquals(2, Main.commandLine().execute("groups", "--entries-per-batch=4", "--groups-per-batch=5"));
        assertEquals(2, Main.commandLine().execute("groups", "--store=etcd"));
        assertEquals(2, Main.commandLine().execute("groups", "--separate-syncs=sometimes"));
        assertEquals(2, Main.commandLine().execute("groups", "--seconds=0"));
    }

    @Test
    void shouldDrawDistinctOwnedGroupsWithConsecutiveIndexes() {
        final GroupsWorkload workload = new GroupsWorkload(23, 3, 16, 7, 3, 0, 1, 1);
        final int writer = 2;
        final GroupsBatchPlan plan = new GroupsBatchPlan(workload, writer);
        final long[] next = new long[24];
        for (int batch = 0; batch < 500; batch++) {
            plan.next();
            final Set<Long> seen = new HashSet<>();
            int entries = 0;
            for (int k = 0; k < plan.groups(); k++) {
                final long group = plan.groupId(k);
                assertTrue(group >= 1 && group <= 23 && (group - 1) % 3 == writer, "group " + group);
                assertTrue(seen.add(group), "groups of a batch are distinct");
                assertEquals(Math.max(1, next[(int) group]), plan.firstIndex(k), "indexes follow on");
                next[(int) group] = plan.firstIndex(k) + plan.entries(k);
                entries += plan.entries(k);
                assertEquals(16, plan.entry(k, 0).length);
            }
            // 7 entries over 3 groups: 3, 2, 2.
            assertEquals(7, entries);
            assertEquals(3, plan.entries(0));
        }
        final long[] last = new long[24];
        plan.lastIndexesInto(last);
        for (int g = 1; g <= 23; g++) {
            assertEquals((g - 1) % 3 == writer ? Math.max(0, next[g] - 1) : 0, last[g], "group " + g);
        }
    }

    @Test
    void shouldReadBackItsResultLinesAndMakeRows() {
        final GroupsResult result = new GroupsResult(
                "walden-groups",
                100,
                4,
                1024,
                10,
                5,
                1000.5,
                100.05,
                10,
                20,
                30,
                40,
                2.5,
                300,
                4000,
                15,
                29,
                100,
                300,
                12.5,
                8,
                0.8,
                64,
                120,
                5003,
                5.0,
                "a note, with a comma");
        assertEquals(result, GroupsResult.fromLine(result.toLine()));
        final ResultRow row = result.toRow();
        assertEquals(GroupsResult.SYSTEM, row.system());
        assertEquals("walden-groups", row.backend());
        assertEquals("n100-e10-g5", row.variant());
        assertEquals(1000.5, row.recordsPerS());
        final GroupsResult failed = GroupsResult.failed("walden-separate", GroupsScenario.WORKLOAD, "no threads");
        assertFalse(failed.measured());
        assertEquals(failed.toLine(), GroupsResult.fromLine(failed.toLine()).toLine());
    }

    @Test
    void shouldReportTheStoresSideBySide() {
        final GroupsResult walden = GroupsResult.fromLine(
                "walden-groups,100,4,1024,10,5,2000,200,10,20,30,40,2.5,300,4000,15,29,100,300,12.5,8,0.8,64,120,10000,5,");
        final GroupsResult rocks = GroupsResult.fromLine(
                "rocksdb-shared,100,4,1024,10,5,1000,100,10,20,30,40,1.5,30,9000,13,30,50,600,,,0.6,64,90,5000,5,");
        final Plan plan = Plan.of(((RunCommand) Main.commandLine()
                        .parseArgs("run")
                        .subcommand()
                        .commandSpec()
                        .userObject())
                .settings());
        final String md = new Report(
                        new RunResults(
                                plan,
                                List.of(walden.toRow(), rocks.toRow()),
                                Map.of(),
                                List.of(),
                                Map.of(),
                                null,
                                "run",
                                "2026-11-26T00:00:00Z",
                                1000),
                        List.of())
                .markdown();
        assertTrue(md.contains("## Many Raft groups: durable batches over several groups"), md);
        assertTrue(md.contains("| walden-groups | 2,000 | 1.00x | 10.0 | 20.0 | 30.0 | latency per batch"), md);
        assertTrue(md.contains("| rocksdb-shared | 1,000 | 0.50x |"), md);
    }

    @Test
    void shouldRunTheGroupsScenarioOnEveryStoreInTheFullRunOnly() {
        final Plan full = Plan.of(((RunCommand) Main.commandLine()
                        .parseArgs("run")
                        .subcommand()
                        .commandSpec()
                        .userObject())
                .settings());
        assertEquals(
                List.of("walden-groups", "walden-one-log", "walden-separate", "rocksdb-per-group", "rocksdb-shared"),
                full.groupsStores());
        final Plan quick = Plan.of(((RunCommand) Main.commandLine()
                        .parseArgs("run", "--quick")
                        .subcommand()
                        .commandSpec()
                        .userObject())
                .settings());
        assertTrue(quick.groupsStores().isEmpty());
        // What the run hands the groups command parses back to the run's workload.
        final List<String> arguments = GroupsScenario.arguments("walden-groups", directory);
        assertEquals(
                GroupsScenario.WORKLOAD, parse(arguments.toArray(new String[0])).workload());
    }

    @Test
    void shouldRunAndCheckTheGroupLogAndLeaveNoStoreBehind() throws Exception {
        final Path base = directory.resolve("runs");
        assertEquals(
                0,
                Main.commandLine()
                        .execute(
                                "groups",
                                "--store=walden-groups",
                                "--groups=8",
                                "--writers=2",
                                "--entries-per-batch=4",
                                "--groups-per-batch=2",
                                "--entry-bytes=100",
                                "--seconds=1",
                                "--warmup-ms=0",
                                "--dir=" + base));
        try (var files = Files.list(base)) {
            assertEquals(0, files.count());
        }
    }
}
