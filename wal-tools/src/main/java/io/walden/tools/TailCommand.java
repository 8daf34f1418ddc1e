package io.walden.tools;

import io.walden.Durability;
import io.walden.RecordHandler;
import io.walden.Wal;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.WalView;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.agrona.DirectBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code walden tail DIR}: follows a log that another process writes, one line per record as it
 * becomes visible (with {@code --json}, one JSON object per line), through a read-only {@link WalView}
 * (no lock, nothing changed). Stops after
 * {@code --count} records, after {@code --timeout}, or on Ctrl-C: a shutdown hook asks the loop to
 * stop and waits for it to close the reader and the view and flush the output.
 *
 * <p>Exit code: 0 when it stops; 2 if the reader reaches corruption; 3 no readable log; 64 for a
 * {@code --from} that is no position of the log.
 */
@Command(
        name = "tail",
        description = {
            "Follows a live log read-only, printing one line per record (position, length, payload) as records"
                    + " become visible. Stops after --count records, after --timeout, or on Ctrl-C.",
            "Exit code: 0 when it stops, 2 corruption reached, 3 no readable log, 64 bad --from."
        })
public final class TailCommand extends LogCommand {
    private static final long POLL_SLICE_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int BATCH = 1024;

    @Option(
            names = "--from",
            paramLabel = "LSN|start|end",
            description = "Where to start: a record's position, 'start' (the oldest record) or 'end' (default: only"
                    + " records that become visible from now on).")
    private String from = "end";

    @Option(
            names = "--visibility",
            paramLabel = "written|synced",
            converter = VisibilityConverter.class,
            description = "written (default): records as soon as they are written; synced: only records the log"
                    + " proves durable.")
    private Durability visibility = Durability.WRITTEN;

    @Mixin
    private PayloadOptions payload = new PayloadOptions();

    @Option(names = "--count", paramLabel = "N", description = "Stop after N records (default: follow until stopped).")
    private long count;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Stop after this long, e.g. 500ms, 10s, 5m (default: follow until stopped).")
    private Duration timeout;

    private volatile boolean stopRequested;
    private final CountDownLatch finished = new CountDownLatch(1);

    /** Creates the command; picocli fills its options. */
    public TailCommand() {
        // Options only.
    }

    @Override
    int run() {
        if (count < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--count must be >= 0, not " + count);
        }
        payload.validate(spec);
        LogDirectory.open(directory);
        final Thread hook = new Thread(this::stopFromSignal, "walden-tail-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        final LineWriter out = new LineWriter(spec.commandLine().getOut());
        final Lines lines = new Lines(out, json() ? new Json(out) : null, payload.printer());
        try (WalView view = Wal.openReadOnly(directory)) {
            final long start = startPosition(view);
            try (WalReader reader = view.reader(start, visibility)) {
                follow(reader, lines, out, start);
            }
        } finally {
            out.flush();
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (final IllegalStateException ex) {
                // The JVM is shutting down (Ctrl-C): the hook is running and sees the loop finished.
            }
        }
        if (stopRequested && !json()) {
            spec.commandLine().getErr().println("walden tail: stopped after " + lines.records + " record(s)");
            spec.commandLine().getErr().flush();
        }
        return Walden.EXIT_OK;
    }

    private void follow(final WalReader reader, final Lines lines, final LineWriter out, final long start) {
        final long deadlineNs = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        while (!stopRequested && (count == 0 || lines.records < count) && !out.failed()) {
            final long remainingNs = deadlineNs == Long.MAX_VALUE ? POLL_SLICE_NS : deadlineNs - System.nanoTime();
            if (remainingNs <= 0) {
                break;
            }
            final int batch = count == 0 ? BATCH : (int) Math.min(BATCH, count - lines.records);
            try {
                reader.poll(lines, batch, Math.min(remainingNs, POLL_SLICE_NS));
            } catch (final WalException ex) {
                if (ex.errorCode() == WalException.ErrorCode.POSITION && lines.records == 0 && !"end".equals(from)) {
                    throw new ToolException(
                            Walden.EXIT_USAGE,
                            "--from " + from + " is not the start of a record in " + directory + ": give a record's"
                                    + " position (as `walden dump` shows it), 'start' or 'end'",
                            ex);
                }
                throw ex;
            }
            out.flush();
        }
    }

    private long startPosition(final WalView view) {
        switch (from.toLowerCase(Locale.ROOT)) {
            case "start":
                return view.startPosition();
            case "end":
                return visibility == Durability.SYNCED ? view.durablePosition() : view.writtenPosition();
            default:
                break;
        }
        final long position;
        try {
            position = Long.parseLong(from);
        } catch (final NumberFormatException ex) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--from takes a position, 'start' or 'end', not '" + from + "'");
        }
        final long startPosition = view.startPosition();
        final long written = view.writtenPosition();
        if (position < startPosition || position > written) {
            throw new ToolException(
                    Walden.EXIT_USAGE,
                    "--from " + position + " is outside the log in " + directory + ", which holds positions ["
                            + startPosition + ", " + written + "): give a position in that range, 'start' or 'end'");
        }
        return position;
    }

    /** Runs in the shutdown hook (Ctrl-C, SIGTERM): asks the loop to stop and waits for it to finish. */
    private void stopFromSignal() {
        stopRequested = true;
        try {
            finished.await(2, TimeUnit.SECONDS);
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Prints one line per record: {@code position=... record-bytes=... payload=...}, or with {@code
     * --json} {@code {"position":...,"recordBytes":...,"payload":...,"payloadTruncated":...}}.
     */
    private static final class Lines implements RecordHandler {
        private final LineWriter out;
        private final Json json;
        private final PayloadOptions.Printer printer;
        private long records;

        Lines(final LineWriter out, final Json json, final PayloadOptions.Printer printer) {
            this.out = out;
            this.json = json;
            this.printer = printer;
        }

        @Override
        public void onRecord(final DirectBuffer buffer, final int offset, final int length, final long lsn) {
            final boolean payload = printer.showsPayloads();
            if (payload) {
                printer.load(lsn, buffer, offset, length);
            }
            if (json != null) {
                json.begin().field("position", lsn).field("recordBytes", length);
                if (payload) {
                    printer.appendJson(json);
                }
                json.endLine();
            } else {
                out.text("position=").number(lsn).text(" record-bytes=").number(length);
                if (payload) {
                    printer.appendText(out);
                }
                out.newline();
            }
            records++;
        }
    }

    /** Converts {@code written} or {@code synced}. */
    static final class VisibilityConverter implements CommandLine.ITypeConverter<Durability> {
        @Override
        public Durability convert(final String value) {
            switch (value.toLowerCase(Locale.ROOT)) {
                case "written":
                    return Durability.WRITTEN;
                case "synced":
                    return Durability.SYNCED;
                default:
                    throw new CommandLine.TypeConversionException(
                            "'" + value + "' is not a visibility: use written or synced");
            }
        }
    }

    /** Converts {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, or a number of seconds. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(final String value) {
            final String text = value.trim().toLowerCase(Locale.ROOT);
            try {
                final Duration duration;
                if (text.endsWith("ms")) {
                    duration = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
                } else if (text.endsWith("s")) {
                    duration = Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
                } else if (text.endsWith("m")) {
                    duration = Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
                } else if (text.endsWith("h")) {
                    duration = Duration.ofHours(Long.parseLong(text.substring(0, text.length() - 1)));
                } else {
                    duration = Duration.ofSeconds(Long.parseLong(text));
                }
                if (duration.isNegative()) {
                    throw new CommandLine.TypeConversionException("'" + value + "' is negative");
                }
                return duration;
            } catch (final NumberFormatException ex) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration: use e.g. 500ms, 10s, 5m or 1h");
            }
        }
    }
}
