package io.walden.tools;

import io.walden.LogInspection;
import io.walden.RecoveryReport;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.NoSuchFileException;

/**
 * {@code walden stat --json}: the state of a log as one JSON object on one line, with the fields of
 * the text output: {@code segments} (name, base, size, header), {@code positions} (start, written,
 * durable; null with {@code positionsProblem} when the read-only view cannot open), records, clean
 * close, {@code lock}, {@code verdict}, {@code corruption}, {@code evidence} and {@code others}.
 *
 * <p><b>Threading:</b> not thread-safe; the command's thread.
 */
final class StatJson {
    private final LineWriter out;

    /**
     * Creates the writer.
     *
     * @param out where the line goes.
     */
    StatJson(final LineWriter out) {
        this.out = out;
    }

    /**
     * Writes the object.
     *
     * @param log the directory as listed.
     * @param positions start, written and durable position, or null.
     * @param positionsProblem why the positions are unavailable, or null.
     * @param inspection what {@code Wal.inspect} found.
     * @param holder who holds the lock.
     * @throws IOException if a segment header cannot be read.
     */
    void write(
            final LogDirectory log,
            final long[] positions,
            final String positionsProblem,
            final LogInspection inspection,
            final LockProbe.Holder holder)
            throws IOException {
        final RecoveryReport report = inspection.report();
        final Json json = new Json(out).begin();
        json.field("directory", log.path().toAbsolutePath().toString())
                .field("logId", String.format("%016x", report.logId()))
                .field("segmentCapacityBytes", report.segmentCapacityBytes())
                .field(
                        "segmentBytesOnDisk",
                        log.segments().stream()
                                .mapToLong(LogDirectory.Segment::size)
                                .sum());
        final SegmentCount count = SegmentCount.of(log, inspection);
        json.field("segmentsInUse", count.inUse()).field("segmentsPrepared", count.prepared());
        json.array("segments");
        for (final LogDirectory.Segment segment : log.segments()) {
            segment(json, segment);
        }
        json.end();
        if (positions == null) {
            json.nullField("positions").field("positionsProblem", positionsProblem);
        } else {
            json.object("positions")
                    .field("start", positions[0])
                    .field("written", positions[1])
                    .field("durable", positions[2])
                    .end()
                    .nullField("positionsProblem");
        }
        json.field("records", report.records())
                .field("bytesScanned", report.bytesScanned())
                .field("recoveredEndPosition", report.recoveredEndPosition())
                .field("provenDurablePosition", report.provenDurablePosition())
                .field("closedCleanly", report.closedCleanly())
                .object("lock")
                .field("state", holder.state().name())
                .field("pid", holder.pid())
                .field("description", holder.describe())
                .end()
                .field("verdict", inspection.verdict().name());
        if (inspection.corruption() == null) {
            json.nullField("corruption");
        } else {
            json.object("corruption")
                    .field("file", String.valueOf(inspection.corruption().file()))
                    .field("offset", inspection.corruption().fileOffset())
                    .field("message", inspection.corruption().getMessage())
                    .end();
        }
        others(json, log);
        json.endLine();
    }

    private static void segment(final Json json, final LogDirectory.Segment segment) throws IOException {
        json.begin().field("name", segment.name()).field("base", segment.base()).field("size", segment.size());
        final SegmentHeader header;
        try {
            header = SegmentHeader.read(segment.path(), segment.base());
        } catch (final NoSuchFileException ex) {
            json.field("deleted", true).nullField("header").end();
            return;
        }
        json.field("deleted", false)
                .object("header")
                .field("ok", header.problem() == null)
                .field("problem", header.problem())
                .field("closedCleanly", header.closedCleanly())
                .field("durablePosition", header.durablePosition())
                .end()
                .end();
    }

    private static void others(final Json json, final LogDirectory log) {
        json.array("evidence");
        for (final LogDirectory.Entry entry : log.others()) {
            if (entry.directory() && entry.name().equals(SegmentNames.EVIDENCE_DIRECTORY_NAME)) {
                for (final LogDirectory.Segment file : entry.files()) {
                    json.begin()
                            .field("file", file.path().toString())
                            .field("size", file.size())
                            .end();
                }
            }
        }
        json.end().array("others");
        for (final LogDirectory.Entry entry : log.others()) {
            if (!(entry.directory() && entry.name().equals(SegmentNames.EVIDENCE_DIRECTORY_NAME))) {
                json.begin()
                        .field("name", entry.name())
                        .field("directory", entry.directory())
                        .field("size", entry.size())
                        .field("kind", kind(entry.name()))
                        .end();
            }
        }
        json.end();
    }

    private static String kind(final String name) {
        if (name.equals(SegmentNames.LOCK_FILE_NAME)) {
            return "lock";
        }
        if (name.endsWith(SegmentNames.TEMPORARY_SUFFIX)) {
            return "preparation";
        }
        if (SegmentNames.parseFreeName(name) >= 0) {
            return "free";
        }
        return "foreign";
    }
}
