package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;

/**
 * One in-process run of the tool, as {@link Walden#commandLine()} executes it (what {@code main}
 * runs), with its output and error captured.
 *
 * @param args the command line.
 * @param exitCode what {@code execute} returned.
 * @param out standard output.
 * @param err standard error.
 */
record ToolRun(List<String> args, int exitCode, String out, String err) {
    /**
     * Runs the tool in-process.
     *
     * @param args the command line.
     * @return the run.
     */
    static ToolRun run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exitCode = Walden.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        return new ToolRun(Arrays.asList(args), exitCode, out.toString(), err.toString());
    }

    /** @return the lines of standard output. */
    List<String> outLines() {
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }

    /**
     * Asserts the exit code, with the whole run in the message if it differs.
     *
     * @param expected the exit code.
     * @return this.
     */
    ToolRun assertExit(final int expected) {
        assertEquals(expected, exitCode, this::toString);
        return this;
    }

    /**
     * Asserts that standard error is exactly one clear line that names a path, with no stack trace.
     *
     * @param expectedExit the exit code.
     * @param path what the line must name.
     * @param fragments further text the line must hold.
     * @return this.
     */
    ToolRun assertOneLineError(final int expectedExit, final String path, final String... fragments) {
        assertExit(expectedExit);
        final String[] lines = err.split("\n");
        assertEquals(1, lines.length, () -> "one line on stderr: " + this);
        assertTrue(lines[0].startsWith("walden "), this::toString);
        assertTrue(lines[0].contains(path), () -> "names " + path + ": " + this);
        for (final String fragment : fragments) {
            assertTrue(lines[0].contains(fragment), () -> "holds '" + fragment + "': " + this);
        }
        assertNoStackTrace();
        return this;
    }

    /**
     * Asserts that nothing on either stream looks like a stack trace or an exception class name.
     *
     * @return this.
     */
    ToolRun assertNoStackTrace() {
        for (final String text : List.of(out, err)) {
            assertFalse(text.contains("Exception"), this::toString);
            assertFalse(text.contains("\tat "), this::toString);
            assertFalse(text.contains("at io."), this::toString);
            assertFalse(text.contains("at java."), this::toString);
        }
        return this;
    }

    @Override
    public String toString() {
        return "walden " + String.join(" ", args) + " -> exit " + exitCode + "\n--- out ---\n"
                + (out.length() > 4000 ? out.substring(0, 4000) + "..." : out) + "\n--- err ---\n" + err;
    }
}
