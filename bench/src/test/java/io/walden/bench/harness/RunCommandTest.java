package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.bench.Main;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RunCommandTest {
    private static RunCommand parse(final String... args) {
        final CommandLine commandLine = Main.commandLine();
        final CommandLine.ParseResult result = commandLine.parseArgs(args);
        return (RunCommand) result.subcommand().commandSpec().userObject();
    }

    @Test
    void quickDefaults() {
        final Plan.Settings settings = parse("run", "--quick").settings();
        assertTrue(settings.quick());
        assertEquals(List.of("nio", "uring"), settings.backends());
        assertEquals(List.of(1, 16, 64), settings.writers());
        assertEquals(List.of(128), settings.sizes());
        assertEquals(List.of("BUFFERED", "WRITTEN", "SYNCED"), settings.durabilities());
        assertEquals(RunCommand.ALL_BASELINES, settings.baselines());
        assertTrue(settings.groupWindowsUs().isEmpty());
        // Long enough for a new log to reach steady state; the start-up row measures the first second.
        assertEquals(1000, settings.warmupMs());
        assertEquals(1500, settings.measureMs());
    }

    @Test
    void fullDefaults() {
        final Plan.Settings settings = parse("run").settings();
        assertFalse(settings.quick());
        assertEquals(RunCommand.FULL_BACKENDS, settings.backends());
        assertEquals(List.of(1, 4, 16, 64), settings.writers());
        assertEquals(List.of(128, 4096), settings.sizes());
        assertEquals(List.of(100L, 1000L), settings.groupWindowsUs());
    }

    @Test
    void explicitOptions() {
        final RunCommand command = parse(
                "run",
                "--out",
                "x/out",
                "--dir=/data",
                "--backends",
                "nio-direct-dsync,uring-direct-dsync",
                "--writers",
                "1,16",
                "--sizes=4096",
                "--durability",
                "synced",
                "--baselines=rocksdb,fio",
                "--warmup-ms=10",
                "--measure-ms=20");
        final Plan.Settings settings = command.settings();
        assertEquals(Path.of("x/out"), command.out);
        assertEquals(Path.of("/data"), command.dir);
        assertEquals(List.of("nio-direct-dsync", "uring-direct-dsync"), settings.backends());
        assertEquals(List.of(1, 16), settings.writers());
        assertEquals(List.of(4096), settings.sizes());
        assertEquals(List.of("SYNCED"), settings.durabilities());
        assertEquals(List.of("rocksdb", "fio"), settings.baselines());
        assertEquals(10, settings.warmupMs());
        assertEquals(20, settings.measureMs());
    }

    @Test
    void refusesUnknownLevelsAndBaselines() {
        assertThrows(IllegalArgumentException.class, () -> parse("run", "--durability=DURABLE")
                .settings());
        assertThrows(IllegalArgumentException.class, () -> parse("run", "--baselines=kafka")
                .settings());
        assertThrows(IllegalArgumentException.class, () -> parse("run", "--writers=0")
                .settings());
        assertNotEquals(0, Main.commandLine().execute("run", "--no-such-option"));
    }

    @Test
    void noBaselines() {
        assertTrue(parse("run", "--baselines=none").settings().baselines().isEmpty());
    }

    @Test
    void plansFitTheirBudgets() {
        final Plan quick = Plan.of(parse("run", "--quick").settings());
        final Plan full = Plan.of(parse("run").settings());
        assertTrue(quick.estimateMs() < 3 * 60_000, "quick estimate " + quick.estimateMs());
        assertTrue(full.estimateMs() < 20 * 60_000, "full estimate " + full.estimateMs());
        assertEquals(
                quick.scenarios().size(),
                quick.scenarios().stream().map(Scenario::id).distinct().count());
        // The bar's scenarios are always planned.
        assertTrue(quick.scenarios().stream().anyMatch(s -> s.id().equals("walden-nio-written-w16-b4096")));
        assertTrue(quick.scenarios().stream().anyMatch(s -> s.id().equals("walden-nio-async-ack-written-w1-b128")));
        assertTrue(full.scenarios().stream().anyMatch(s -> s.id().equals("rocksdb-wal-synced-w64-b128")));
        assertTrue(full.scenarios().stream().anyMatch(s -> s.id().equals("walden-nio-synced-w16-b128-gw1000")));
    }

    @Test
    void scenarioArgumentsRoundTrip() {
        final Scenario scenario = new Scenario("walden", "uring-direct", "-", "SYNCED", 16, 4096, 100, 5, 7);
        final ScenarioCommand command = new ScenarioCommand();
        new CommandLine(command).parseArgs(scenario.toArgs().toArray(new String[0]));
        assertEquals(scenario.system(), command.system);
        assertEquals(scenario.backend(), command.backend);
        assertEquals(scenario.writers(), command.writers);
        assertEquals(scenario.recordBytes(), command.recordBytes);
        assertEquals(scenario.groupWindowUs(), command.groupWindowUs);
        assertEquals(scenario.measureMs(), command.measureMs);
    }
}
