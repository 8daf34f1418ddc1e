package io.walden.tools;

import io.walden.WalCorruptionException;
import io.walden.WalException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Turns every failure of a command into one clear line on standard error and an exit code: what is
 * wrong, the path, what to do. A stack trace is printed only with {@code --verbose}. Both the commands
 * (which run their work through {@link #run}) and {@link Walden#commandLine()}'s execution exception
 * handler use it, so no stack trace reaches a user whichever way the tool is started.
 *
 * <p>With {@code --json} the failure is one JSON object on standard output instead, after whatever
 * the command printed there (so a script reads one stream, one object per line), and nothing goes to
 * standard error but the stack trace {@code --verbose} asks for: {@code
 * {"error":{"code":"UNREADABLE","exitCode":3,"command":"verify","message":"...","path":"/var/wal"}}},
 * with {@code "file"} and {@code "offset"} added for corruption. The codes are {@link #codeName}'s.
 *
 * <p><b>Threading:</b> stateless.
 */
final class Failures implements CommandLine.IExecutionExceptionHandler {
    private static final String ACCESS = "check the path and that it is readable (the tool needs read access only)";

    /** The work of a command, returning its exit code. */
    @FunctionalInterface
    interface Work {
        /**
         * Runs the command.
         *
         * @return the exit code.
         * @throws Exception any failure, reported by {@link Failures}.
         */
        int run() throws Exception;
    }

    /**
     * Runs a command's work, reporting a failure in one line.
     *
     * @param spec the command, for its name and streams.
     * @param verbose whether to print the stack trace too.
     * @param json whether to report as a JSON object on standard output.
     * @param directory the log directory the command works on, named in messages.
     * @param work the work.
     * @return its exit code, or the failure's.
     */
    static int run(
            final CommandSpec spec, final boolean verbose, final boolean json, final Path directory, final Work work) {
        try {
            return work.run();
        } catch (final CommandLine.ParameterException ex) {
            throw ex; // picocli reports it as a usage error
        } catch (final Exception ex) {
            return report(spec.commandLine(), ex, verbose, json, directory);
        }
    }

    @Override
    public int handleExecutionException(
            final Exception ex, final CommandLine commandLine, final CommandLine.ParseResult parseResult) {
        final Object command = commandLine.getCommand();
        final boolean verbose = parseResult.hasMatchedOption("--verbose")
                || (command instanceof Walden && ((Walden) command).verbose());
        final boolean json =
                parseResult.hasMatchedOption("--json") || (command instanceof Walden && ((Walden) command).json());
        return report(commandLine, ex, verbose, json, null);
    }

    /**
     * The name of an exit code in a JSON error's {@code "code"}.
     *
     * @param exitCode one of {@link Walden}'s exit codes.
     * @return {@code TORN_TAIL}, {@code CORRUPTION}, {@code UNREADABLE}, {@code IN_USE}, {@code USAGE}
     *     or {@code INTERNAL}.
     */
    static String codeName(final int exitCode) {
        switch (exitCode) {
            case Walden.EXIT_TORN_TAIL:
                return "TORN_TAIL";
            case Walden.EXIT_CORRUPTION:
                return "CORRUPTION";
            case Walden.EXIT_UNREADABLE:
                return "UNREADABLE";
            case Walden.EXIT_IN_USE:
                return "IN_USE";
            case Walden.EXIT_USAGE:
                return "USAGE";
            default:
                return "INTERNAL";
        }
    }

    /**
     * Prints a failure as one JSON object on the command's standard output.
     *
     * @param commandLine the command, for its name and output.
     * @param exitCode the exit code.
     * @param message what is wrong and what to do.
     * @param path the log directory, or null if unknown.
     * @param corruption the corruption, for its file and offset, or null.
     */
    static void printJson(
            final CommandLine commandLine,
            final int exitCode,
            final String message,
            final Path path,
            final WalCorruptionException corruption) {
        final LineWriter out = new LineWriter(commandLine.getOut());
        final Json json = new Json(out).begin().object("error");
        json.field("code", codeName(exitCode))
                .field("exitCode", exitCode)
                .field("command", commandLine.getCommandName())
                .field("message", oneLine(message))
                .field("path", path == null ? null : path.toString());
        if (corruption != null) {
            json.field(
                            "file",
                            corruption.file() == null ? null : corruption.file().toString())
                    .field("offset", corruption.fileOffset());
        }
        json.end().endLine();
        out.flush();
    }

    private static int report(
            final CommandLine commandLine,
            final Throwable failure,
            final boolean verbose,
            final boolean json,
            final Path directory) {
        final Throwable ex = failure instanceof UncheckedIOException ? failure.getCause() : failure;
        final int exitCode;
        final String message;
        if (ex instanceof ToolException) {
            exitCode = ((ToolException) ex).exitCode();
            message = ex.getMessage();
        } else if (ex instanceof WalCorruptionException) {
            exitCode = Walden.EXIT_CORRUPTION;
            message = ex.getMessage() + " (`walden dump` shows the frames there)";
        } else if (ex instanceof WalException && ((WalException) ex).errorCode() == WalException.ErrorCode.LOCKED) {
            exitCode = Walden.EXIT_IN_USE;
            message = ex.getMessage() + "; nothing was changed";
        } else if (ex instanceof WalException && ex.getCause() instanceof IOException) {
            exitCode = Walden.EXIT_UNREADABLE;
            message = "cannot read the log" + (directory == null ? "" : " in " + directory) + ": "
                    + describe((IOException) ex.getCause()) + "; " + ACCESS
                    + ", and if a writer's retention deleted old segments meanwhile, run the command again";
        } else if (ex instanceof WalException) {
            exitCode = Walden.EXIT_UNREADABLE;
            message = ex.getMessage();
        } else if (ex instanceof IOException) {
            exitCode = Walden.EXIT_UNREADABLE;
            message = "cannot read the log" + (directory == null ? "" : " in " + directory) + ": "
                    + describe((IOException) ex) + "; " + ACCESS;
        } else {
            exitCode = Walden.EXIT_SOFTWARE;
            message = "internal error" + (directory == null ? "" : " reading " + directory) + ": " + ex
                    + "; rerun with --verbose for the stack trace and report it";
        }
        commandLine.getOut().flush();
        final PrintWriter err = commandLine.getErr();
        if (json) {
            printJson(commandLine, exitCode, message, directory, corruptionOf(ex));
        } else {
            err.println("walden " + commandLine.getCommandName() + ": " + oneLine(message));
        }
        if (verbose) {
            failure.printStackTrace(err);
        }
        err.flush();
        return exitCode;
    }

    private static WalCorruptionException corruptionOf(final Throwable ex) {
        if (ex instanceof WalCorruptionException) {
            return (WalCorruptionException) ex;
        }
        return ex.getCause() instanceof WalCorruptionException ? (WalCorruptionException) ex.getCause() : null;
    }

    /**
     * Describes a file-system failure for a person: the file and what happened, without exception
     * class names.
     *
     * @param ex the failure.
     * @return e.g. {@code /var/log/wal/x.wal: permission denied}.
     */
    static String describe(final IOException ex) {
        if (ex instanceof FileSystemException) {
            final FileSystemException fs = (FileSystemException) ex;
            final String file = fs.getFile() == null ? "" : fs.getFile() + ": ";
            if (ex instanceof NoSuchFileException) {
                return file + "no such file or directory";
            }
            if (ex instanceof AccessDeniedException) {
                return file + "permission denied";
            }
            if (ex instanceof NotDirectoryException) {
                return file + "not a directory";
            }
            return file + (fs.getReason() == null ? "file system error" : fs.getReason());
        }
        return ex.getMessage() == null ? "I/O error" : ex.getMessage();
    }

    /**
     * @param message a message.
     * @return it on one line.
     */
    static String oneLine(final String message) {
        return String.valueOf(message).replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ');
    }
}
