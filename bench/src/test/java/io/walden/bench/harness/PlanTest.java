package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.bench.BenchLogs;
import io.walden.bench.Main;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The start-up scenario: planned in quick and full runs, with its own durations, beside the steady one;
 * and the open-loop async-durable rows.
 */
final class PlanTest {
    private static Plan plan(final String... args) {
        final CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        return Plan.of(((RunCommand) result.subcommand().commandSpec().userObject()).settings());
    }

    private static void assertStartUpBesideSteady(final Plan plan) {
        final List<Scenario> scenarios = plan.scenarios();
        final List<Scenario> startUps = scenarios.stream()
                .filter(s -> s.variant().equals(Systems.VARIANT_START_UP))
                .toList();
        assertEquals(
                1,
                startUps.size(),
                () -> "start-up rows in " + scenarios.stream().map(Scenario::id).toList());
        final Scenario startUp = startUps.get(0);
        assertEquals(
                new Scenario(Systems.WALDEN, "nio", Systems.VARIANT_START_UP, "SYNCED", 1, 128, 0, 250, 600), startUp);
        assertEquals("walden-nio-start-up-synced-w1-b128", startUp.id());
        final Scenario before = scenarios.get(scenarios.indexOf(startUp) - 1);
        assertEquals(
                new Scenario(
                        Systems.WALDEN,
                        "nio",
                        Scenario.NONE,
                        "SYNCED",
                        1,
                        128,
                        0,
                        plan.settings().warmupMs(),
                        plan.settings().measureMs()),
                before,
                "the steady row runs just before the start-up row");
        assertEquals(
                scenarios.size(),
                scenarios.stream().map(Scenario::id).distinct().count(),
                "ids stay unique: histograms are keyed by id");
    }

    @Test
    void quickPlanHasTheStartUpRow() {
        final Plan quick = plan("run", "--quick");
        assertStartUpBesideSteady(quick);
        assertTrue(quick.settings().warmupMs() > Plan.START_UP_WARMUP_MS, "the quick run's own rows are steady");
    }

    @Test
    void fullPlanHasTheStartUpRow() {
        assertStartUpBesideSteady(plan("run"));
    }

    private static List<String> asyncDurableIds(final Plan plan) {
        return plan.scenarios().stream()
                .filter(s -> s.variant().equals(Systems.VARIANT_ASYNC_DURABLE))
                .map(Scenario::id)
                .toList();
    }

    @Test
    void quickPlanHasOneAsyncDurableRow() {
        assertEquals(List.of("walden-nio-async-durable-synced-w1-b128"), asyncDurableIds(plan("run", "--quick")));
    }

    @Test
    void fullPlanHasTheAsyncDurableRowsBesideTheAsyncAckOnes() {
        final Plan full = plan("run");
        final List<String> ids = asyncDurableIds(full);
        final List<String> expected = new ArrayList<>(List.of(
                "walden-nio-async-durable-synced-w1-b128",
                "walden-nio+deepflush1000us-async-durable-synced-w1-b128",
                "walden-nio-async-durable-synced-w4-b128",
                "walden-nio-async-durable-synced-w1-b4096",
                "walden-nio-async-durable-synced-w4-b4096",
                "walden-uring-direct-dsync-async-durable-synced-w1-b128"));
        if (BenchLogs.ffmUringAvailable()) {
            expected.add("walden-uring-ffm-direct-dsync-async-durable-synced-w1-b128");
        }
        assertEquals(expected, ids);
        final List<String> all = full.scenarios().stream().map(Scenario::id).toList();
        assertEquals(
                all.indexOf("walden-nio-async-ack-written-w1-b4096") + 1,
                all.indexOf(ids.get(0)),
                "the async-durable rows follow the async-ack ones");
    }

    @Test
    void startUpRowKeepsItsDurationsWhateverTheRunChooses() {
        assertStartUpBesideSteady(plan("run", "--writers=16", "--durability=WRITTEN", "--warmup-ms=3000"));
        assertStartUpBesideSteady(plan("run", "--quick", "--baselines=none", "--measure-ms=5000"));
    }
}
