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
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code walden} command-line tool: checks, shows and follows a Walden log without ever changing
 * it. Every command opens files read-only, takes no lock and creates nothing, so it may run beside the
 * process that writes the log, or on a copy.
 *
 * <pre>
 *   walden verify DIR     what opening the log would find: exit 0 clean, 1 torn tail only, 2 corruption
 *   walden dump DIR       one line per frame, with segment headers and checksum status
 *   walden stat DIR       segments, positions, sizes, records, clean-close state, lock holder, evidence
 *   walden tail DIR       follows a live log, one line per record
 * </pre>
 *
 * <p>Exit codes common to every command: {@value #EXIT_UNREADABLE} when the directory cannot be read,
 * holds no log, or an I/O error occurs (the message names the path and what to do); {@value
 * #EXIT_USAGE} for a usage error; {@value #EXIT_CORRUPTION} when the log is corrupt.
 *
 * <p><b>Threading:</b> a command runs on the calling thread.
 */
@Command(
        name = "walden",
        mixinStandardHelpOptions = true,
        versionProvider = Walden.Version.class,
        subcommands = {VerifyCommand.class, DumpCommand.class, StatCommand.class, TailCommand.class},
        exitCodeOnInvalidInput = Walden.EXIT_USAGE,
        exitCodeOnExecutionException = Walden.EXIT_SOFTWARE,
        description = {
            "Checks, shows and follows a Walden write-ahead log without changing it: files are opened read-only,"
                    + " no lock is taken, nothing is created. Works on a live log and on a copy."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success; verify: the log is clean",
            "1:verify: a torn tail only (what a crash, or a write in progress, leaves); dump: invalid bytes in"
                    + " the newest segment only",
            "2:the log is corrupt (verify, stat, dump, tail)",
            "3:the directory cannot be read, holds no log, or an I/O error occurred",
            "64:usage error",
            "70:internal error (a bug: rerun with --verbose and report it)"
        })
public final class Walden {
    /** Exit code: success; for {@code verify}, a clean log. */
    public static final int EXIT_OK = 0;
    /** Exit code of {@code verify}: a torn tail only, which opening the log cuts. */
    public static final int EXIT_TORN_TAIL = 1;
    /** Exit code: the log is corrupt; opening it under the default policy fails. */
    public static final int EXIT_CORRUPTION = 2;
    /** Exit code: the directory cannot be read, holds no log, or an I/O error occurred. */
    public static final int EXIT_UNREADABLE = 3;
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
        return new CommandLine(new Walden()).setExecutionExceptionHandler(new Failures());
    }

    /** @return whether {@code --verbose} was given, on this command or a subcommand. */
    boolean verbose() {
        return verbose;
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
