package io.walden.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command that parses its own options still answers {@code --help} with its usage. */
class PassThroughHelpTest {
    @Test
    void shouldPrintTheUsageOfEveryPassThroughCommandOnHelp() {
        for (final String command : new String[] {"demo", "backpressure", "recovery", "follow"}) {
            final CommandLine commandLine = Main.commandLine();
            final StringWriter out = new StringWriter();
            commandLine.setOut(new PrintWriter(out));
            assertEquals(0, commandLine.execute(command, "--help"), command);
            assertTrue(out.toString().contains("Options: ["), command + " printed: " + out);
        }
    }
}
