package io.walden.tools;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * What every {@code walden} command shares: the log directory argument, the standard help and
 * version options, {@code --json} and {@code --verbose} (inherited from {@link Walden}), the exit
 * codes for usage and internal errors, and running the command's work so that any failure becomes
 * one line, or one JSON object, and an exit code ({@link Failures}).
 *
 * <p><b>Threading:</b> filled by picocli, then run on the calling thread.
 */
@Command(
        mixinStandardHelpOptions = true,
        versionProvider = Walden.Version.class,
        exitCodeOnInvalidInput = Walden.EXIT_USAGE,
        exitCodeOnExecutionException = Walden.EXIT_SOFTWARE)
abstract class LogCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @ParentCommand
    private Walden parent;

    @Parameters(index = "0", paramLabel = "DIR", description = "The log directory.")
    Path directory;

    @Override
    public final Integer call() {
        return Failures.run(spec, parent != null && parent.verbose(), json(), directory, this::run);
    }

    /** @return whether {@code --json} was given (an option of the top command, inherited). */
    final boolean json() {
        return parent != null && parent.json();
    }

    /**
     * The command's work.
     *
     * @return the exit code.
     * @throws Exception any failure, reported in one line by {@link Failures}.
     */
    abstract int run() throws Exception;
}
