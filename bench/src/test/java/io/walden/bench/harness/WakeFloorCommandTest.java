package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.bench.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wake-floor experiment runs both ways of waiting and leaves no file behind. */
class WakeFloorCommandTest {
    @TempDir
    Path directory;

    @Test
    void shouldCompleteCyclesWithParkedAndWithYieldingWaiters() throws Exception {
        for (final boolean yield : new boolean[] {false, true}) {
            final WakeFloorCommand.Floor floor = WakeFloorCommand.run(directory, 3, yield, 100);
            assertTrue(floor.recordsPerSecond() > 0, floor + ", yield " + yield);
            assertTrue(floor.cpuNsPerRecord() > 0, floor + ", yield " + yield);
        }
        try (var files = Files.list(directory)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void shouldCreateTheDirectoryItIsGiven() {
        final Path missing = directory.resolve("not-yet");
        assertEquals(
                0,
                Main.commandLine()
                        .execute(
                                "wakefloor",
                                "--writers",
                                "2",
                                "--rounds",
                                "1",
                                "--measure-ms",
                                "50",
                                "--dir",
                                missing.toString()));
        assertTrue(Files.isDirectory(missing));
    }

    @Test
    void shouldRefuseZeroWriters() {
        assertEquals(2, Main.commandLine().execute("wakefloor", "--writers", "0", "--dir", directory.toString()));
    }
}
