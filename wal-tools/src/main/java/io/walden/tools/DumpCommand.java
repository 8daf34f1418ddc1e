package io.walden.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code walden dump DIR}: one line per frame of every segment, in position order, with a line per
 * segment header and a line for each run of invalid bytes (what is wrong, at which file and offset;
 * the dump then continues with the next segment). See {@link FrameDump}. With {@code --json}, one
 * JSON object per line ({@link DumpJson}); payloads as {@code --payload} or {@code --decoder} says.
 *
 * <p>Exit code: 0 every frame shown is valid; 1 invalid bytes only at the end of the newest segment
 * holding data (a torn tail, or a write in progress on a live log: {@code walden verify} judges); 2
 * invalid bytes elsewhere (corruption); 3 no readable log.
 */
@Command(
        name = "dump",
        description = {
            "Prints one line per frame, in position order: position, length, type, flags, durable offset,"
                    + " checksum status (ok/BAD) and optionally the payload; a line per segment header; and an"
                    + " INVALID line, naming file and offset, where bytes are not a valid frame (the dump then"
                    + " continues with the next segment). --json: one JSON object per line, the summary last.",
            "Exit code: 0 all valid, 1 invalid bytes only at the end of the newest segment (a torn tail or a write"
                    + " in progress), 2 corruption, 3 no readable log."
        })
public final class DumpCommand extends LogCommand {
    @Option(
            names = "--from",
            paramLabel = "LSN",
            description = "Show frames from the first one at or after this position (default: the log's start).")
    private long fromPosition;

    @Option(names = "--limit", paramLabel = "N", description = "Show at most N frames (default: all).")
    private long limit = Long.MAX_VALUE;

    @Option(
            names = "--raw",
            description = "Show payloads stored encoded (compressed) as stored, not decoded with their codec.")
    private boolean raw;

    @Mixin
    private PayloadOptions payload = new PayloadOptions();

    /** Creates the command; picocli fills its options. */
    public DumpCommand() {
        // Options only.
    }

    @Override
    int run() throws Exception {
        if (fromPosition < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--from must be a position >= 0, not " + fromPosition);
        }
        if (limit < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be >= 0, not " + limit);
        }
        payload.validate(spec);
        final LogDirectory log = LogDirectory.open(directory);
        final LineWriter out = new LineWriter(spec.commandLine().getOut());
        final DumpLines lines = json() ? new DumpJson(out) : new DumpText(out);
        final FrameDump dump = new FrameDump(lines, payload.printer(), fromPosition, limit, raw);
        try {
            dump.dump(log);
        } finally {
            out.flush();
        }
        final int invalid = dump.damaged() + dump.newestSegmentAnomalies();
        if (invalid == 0) {
            return Walden.EXIT_OK;
        }
        final int exitCode = dump.damaged() > 0 ? Walden.EXIT_CORRUPTION : Walden.EXIT_TORN_TAIL;
        if (json()) {
            return exitCode; // the summary line says it
        }
        spec.commandLine()
                .getErr()
                .println("walden dump: " + invalid + " invalid region(s) in " + directory + "; the first: "
                        + dump.firstProblem() + ". "
                        + (dump.damaged() > 0
                                ? "The log is corrupt there; run `walden verify " + directory + "` for the verdict"
                                : "Only at the end of the newest segment: a torn tail, or a write in progress on a"
                                        + " live log; run `walden verify " + directory + "` for the verdict"));
        spec.commandLine().getErr().flush();
        return exitCode;
    }
}
