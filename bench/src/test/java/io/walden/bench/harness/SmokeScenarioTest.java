package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tiny real scenarios, in this JVM, about a second in all. */
class SmokeScenarioTest {
    @TempDir
    Path directory;

    @Test
    void waldenSyncedFromTwoWriters() throws Exception {
        final Scenario scenario = new Scenario("walden", "nio", "-", "SYNCED", 2, 128, 0, 100, 300);
        final ResultRow row = ScenarioCommand.run(scenario, directory.resolve("walden"));
        assertTrue(row.measured(), row.toString());
        assertTrue(row.records() > 0, row.toString());
        assertTrue(row.syncsPerS() > 0, row.toString());
        assertTrue(row.p50Us() <= row.p99Us() && row.p99Us() <= row.maxUs(), row.toString());
        assertEquals("", row.note());
    }

    @Test
    void waldenAsyncDurableFromTwoProducers() throws Exception {
        final Scenario scenario =
                new Scenario("walden", "nio", Systems.VARIANT_ASYNC_DURABLE, "SYNCED", 2, 128, 0, 100, 300);
        final ResultRow row = ScenarioCommand.run(scenario, directory.resolve("async-durable"));
        assertTrue(row.measured(), row.toString());
        assertTrue(row.records() > 0, row.toString());
        assertTrue(row.syncsPerS() > 0, row.toString());
        assertTrue(row.recordsPerSync() >= 1, row.toString());
        assertTrue(row.p50Us() <= row.p99Us() && row.p99Us() <= row.maxUs(), row.toString());
        assertEquals("", row.note());
    }

    @Test
    void fileChannelForcePerRecord() throws Exception {
        final Path dir = directory.resolve("fc");
        java.nio.file.Files.createDirectories(dir);
        final Scenario scenario = new Scenario("filechannel-force", "buffered", "-", "SYNCED", 1, 128, 0, 50, 200);
        final ResultRow row = ScenarioCommand.run(scenario, dir);
        assertTrue(row.records() > 0, row.toString());
        assertEquals(1.0, row.recordsPerSync(), 0.2);
    }
}
