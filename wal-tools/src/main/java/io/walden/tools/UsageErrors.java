package io.walden.tools;

import java.util.Arrays;
import picocli.CommandLine;

/**
 * Reports a usage error (an unknown command or option, a missing or invalid argument): with {@code
 * --json} anywhere on the command line, as one JSON error object on standard output ({@link
 * Failures#printJson}, code {@code USAGE}); otherwise as picocli does, the message and the command's
 * usage on standard error. The exit code is {@link Walden#EXIT_USAGE} either way.
 *
 * <p>The command line is looked at as given, not as parsed: parsing failed, and {@code --json} may
 * stand after the word that failed it.
 *
 * <p><b>Threading:</b> stateless but for the handler it falls back to.
 */
final class UsageErrors implements CommandLine.IParameterExceptionHandler {
    private final CommandLine.IParameterExceptionHandler text;

    /**
     * Creates the handler.
     *
     * @param text picocli's handler, for reports without {@code --json}.
     */
    UsageErrors(final CommandLine.IParameterExceptionHandler text) {
        this.text = text;
    }

    @Override
    public int handleParseException(final CommandLine.ParameterException ex, final String[] args) throws Exception {
        if (!Arrays.asList(args).contains("--json")) {
            return text.handleParseException(ex, args);
        }
        final CommandLine commandLine = ex.getCommandLine();
        commandLine.getOut().flush();
        Failures.printJson(
                commandLine,
                Walden.EXIT_USAGE,
                ex.getMessage() + " (" + commandLine.getCommandSpec().qualifiedName() + " --help shows the usage)",
                null,
                null);
        return Walden.EXIT_USAGE;
    }
}
