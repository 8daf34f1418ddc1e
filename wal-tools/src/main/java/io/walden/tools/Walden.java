package io.walden.tools;

import io.walden.format.SegmentHeaderDescriptor;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code walden} command-line tool: checks, shows and follows a Walden log, and, offline, cuts it.
 * The reading commands open files read-only, take no lock and create nothing, so they may run beside
 * the process that writes the log, or on a copy; the two that change the log take its lock and refuse
 * a log a process has open.
 *
 * <pre>
 *   walden verify DIR     what opening the log would find: exit 0 clean, 1 torn tail only, 2 corruption
 *   walden dump DIR       one line per frame, with segment headers and checksum status
 *   walden stat DIR       segments, positions, sizes, records, clean-close state, lock holder, evidence
 *   walden tail DIR       follows a live log, one line per record
 *   walden truncate-after LSN DIR   offline: removes every record after LSN, keeping them as evidence
 *   walden repair DIR     offline: cuts corruption (RecoveryPolicy.TRUNCATE), keeping it as evidence;
 *                         --skip-damaged keeps the records after it (SKIP); --dry-run changes nothing
 * </pre>
 *
 * <p>Exit codes common to every command: {@value #EXIT_UNREADABLE} when the directory cannot be read,
 * holds no log, or an I/O error occurs (the message names the path and what to do); {@value
 * #EXIT_USAGE} for a usage error; {@value #EXIT_CORRUPTION} when the log is corrupt. With {@code
 * --json} every command prints JSON on standard output, one object per line, an error included
 * ({@link Failures}).
 *
 * <p><b>Threading:</b> a command runs on the calling thread.
 */
@Command(
        name = "walden",
        mixinStandardHelpOptions = true,
        versionProvider = Walden.Version.class,
        subcommands = {
            VerifyCommand.class,
            DumpCommand.class,
            StatCommand.class,
            TailCommand.class,
            TruncateAfterCommand.class,
            RepairCommand.class
        },
        exitCodeOnInvalidInput = Walden.EXIT_USAGE,
        exitCodeOnExecutionException = Walden.EXIT_SOFTWARE,
        description = {
            "Checks, shows and follows a Walden write-ahead log: verify, stat, dump and tail open files read-only,"
                    + " take no lock and create nothing, so they work on a live log and on a copy. truncate-after"
                    + " and repair change a log that no process has open, keeping what they cut as evidence."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success; verify: the log is clean",
            "1:verify: a torn tail only (what a crash, or a write in progress, leaves); dump: invalid bytes in"
                    + " the newest segment only",
            "2:the log is corrupt (verify, stat, dump, tail)",
            "3:the directory cannot be read, holds no log, or an I/O error occurred",
            "4:truncate-after, repair: a process has the log open (holds its lock); nothing was changed",
            "5:repair --skip-damaged: the records after the damage are kept, but damage inside a batch that no"
                    + " discard frame fits stays in place, skipped: the log opens with RecoveryPolicy.SKIP only",
            "64:usage error",
            "70:internal error (a bug: rerun with --verbose and report it)"
        })
public final class Walden implements Callable<Integer> {
    /** Exit code: success; for {@code verify}, a clean log. */
    public static final int EXIT_OK = 0;
    /** Exit code of {@code verify}: a torn tail only, which opening the log cuts. */
    public static final int EXIT_TORN_TAIL = 1;
    /** Exit code: the log is corrupt; opening it under the default policy fails. */
    public static final int EXIT_CORRUPTION = 2;
    /** Exit code: the directory cannot be read, holds no log, or an I/O error occurred. */
    public static final int EXIT_UNREADABLE = 3;
    /** Exit code of {@code truncate-after} and {@code repair}: a process holds the log's lock. */
    public static final int EXIT_IN_USE = 4;
    /**
     * Exit code of {@code repair --skip-damaged}: the records after the damage are kept, but damaged
     * frames inside a batch that no discard frame fits stay in place, skipped: the log opens with
     * {@code RecoveryPolicy.SKIP} only.
     */
    public static final int EXIT_SKIP_ONLY = 5;
    /** Exit code: a usage error (unknown option, missing or invalid argument). */
    public static final int EXIT_USAGE = 64;
    /** Exit code: an internal error of the tool. */
    public static final int EXIT_SOFTWARE = 70;

    // Held so that the level set in main stays (java.util.logging keeps loggers weakly).
    private static final Logger WALDEN_LOGGER = Logger.getLogger("io.walden");

    @Option(
            names = "--verbose",
            scope = ScopeType.INHERIT,
            description = "On an error, print the stack trace after the message.")
    private boolean verbose;

    @Option(
            names = "--json",
            scope = ScopeType.INHERIT,
            description = "Print JSON on standard output, one object per line (dump and tail: one per frame or"
                    + " record, then dump's summary), errors included: {\"error\":{\"code\":...,"
                    + "\"exitCode\":...,\"message\":...,\"path\":...}}. Nothing else is printed.")
    private boolean json;

    @Spec
    private CommandSpec spec;

    /** Creates the top command; picocli fills its options. */
    public Walden() {
        // Options only.
    }

    /**
     * Runs the tool and exits with its exit code.
     *
     * @param args the command line.
     */
    public static void main(final String[] args) {
        // wal-core logs at INFO what matters to a service that opens a log (such as a segment capacity
        // differing from the configured default); the tool configures nothing, so only warnings show.
        WALDEN_LOGGER.setLevel(Level.WARNING);
        final PrintWriter out = new PrintWriter(
                new BufferedWriter(
                        new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8),
                        1 << 16),
                false);
        final PrintWriter err = new PrintWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true);
        final int exitCode = commandLine().setOut(out).setErr(err).execute(args);
        out.flush();
        err.flush();
        System.exit(exitCode);
    }

    /**
     * The tool's command line, ready to {@link CommandLine#execute}: with the execution exception
     * handler that reports any failure in one line. Tests run commands in-process through it, with
     * their own output and error writers.
     *
     * @return a new command line.
     */
    public static CommandLine commandLine() {
        final CommandLine commandLine = new CommandLine(new Walden());
        return commandLine
                .setExecutionExceptionHandler(new Failures())
                .setParameterExceptionHandler(new UsageErrors(commandLine.getParameterExceptionHandler()));
    }

    /**
     * Runs when no command is given: a usage error.
     *
     * @return never.
     * @throws CommandLine.ParameterException always.
     */
    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "Missing command: give one of verify, stat, dump, tail, truncate-after or repair");
    }

    /** @return whether {@code --verbose} was given, on this command or a subcommand. */
    boolean verbose() {
        return verbose;
    }

    /** @return whether {@code --json} was given, on this command or a subcommand. */
    boolean json() {
        return json;
    }

    /** Prints the tool's version and the log format it reads. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "walden " + version() + " (reads Walden log format version " + SegmentHeaderDescriptor.FORMAT_VERSION
                        + ")",
                "Java " + System.getProperty("java.version") + ", " + System.getProperty("java.vm.name")
            };
        }

        private static String version() {
            try (InputStream in = Walden.class.getResourceAsStream("version.properties")) {
                if (in == null) {
                    return "(unknown version)";
                }
                final Properties properties = new Properties();
                properties.load(in);
                return properties.getProperty("version", "(unknown version)");
            } catch (final IOException ex) {
                return "(unknown version)";
            }
        }
    }
}
