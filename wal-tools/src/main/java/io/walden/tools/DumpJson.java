package io.walden.tools;

import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;

import io.walden.format.FrameDecoder;

/**
 * {@code walden dump --json}: one JSON object per line, its {@code "kind"} one of {@code segment},
 * {@code deleted}, {@code frame}, {@code end}, {@code invalid} and, last, {@code summary}; the fields
 * are the text lines' in camel case. A frame's {@code "type"} is {@code DATA}, {@code PADDING}, {@code
 * DISCARD} or {@code unknown(0x....)}; its {@code "flags"} and {@code "durableOffset"} are null for a
 * short padding frame, which has no header.
 *
 * <p><b>Threading:</b> the dump's thread.
 */
final class DumpJson implements DumpLines {
    private final LineWriter out;
    private final Json json;

    /**
     * Creates the lines.
     *
     * @param out where they go.
     */
    DumpJson(final LineWriter out) {
        this.out = out;
        this.json = new Json(out);
    }

    @Override
    public void deleted(final LogDirectory.Segment segment) {
        json.begin()
                .field("kind", "deleted")
                .field("segment", segment.name())
                .field("base", segment.base())
                .endLine();
    }

    @Override
    public void segment(final LogDirectory.Segment segment, final SegmentHeader header, final long sizeBytes) {
        json.begin()
                .field("kind", "segment")
                .field("segment", segment.name())
                .field("base", segment.base())
                .field("capacity", header.capacity())
                .field("logId", String.format("%016x", header.logId()))
                .field("version", header.version())
                .field("closedCleanly", header.closedCleanly())
                .field("headerDurablePosition", header.durablePosition())
                .field("writeLimit", header.writeLimitOffset())
                .field("continued", header.continued())
                .field("headerChecksum", header.checksumOk() ? "ok" : "BAD")
                .field("size", sizeBytes)
                .endLine();
    }

    @Override
    public void frame(
            final long position, final FrameDecoder decoder, final String codec, final PayloadOptions.Printer payload) {
        json.begin().field("kind", "frame").field("position", position).field("length", decoder.frameLength());
        if (!decoder.hasHeader()) {
            json.field("type", "PADDING").nullField("flags").nullField("durableOffset");
        } else {
            json.field("type", type(decoder.frameType())).field("flags", decoder.flags() & 0xFFFF);
            if (codec != null) {
                json.field("codec", codec);
            }
            json.field("durableOffset", decoder.durableOffset());
        }
        json.field("checksum", decoder.checksumMatched() ? "ok" : "BAD");
        if (payload != null) {
            payload.appendJson(json);
        }
        json.endLine();
    }

    @Override
    public void end(
            final LogDirectory.Segment segment,
            final long offset,
            final long frames,
            final long records,
            final String why) {
        json.begin()
                .field("kind", "end")
                .field("segment", segment.name())
                .field("offset", offset)
                .field("position", segment.base() + offset)
                .field("frames", frames)
                .field("records", records)
                .field("why", why)
                .endLine();
    }

    @Override
    public void invalid(
            final LogDirectory.Segment segment,
            final long offset,
            final String problem,
            final String consequence,
            final boolean corruption) {
        json.begin().field("kind", "invalid").field("segment", segment.name());
        if (offset >= 0) {
            json.field("offset", offset).field("position", segment.base() + offset);
        } else {
            json.nullField("offset").nullField("position");
        }
        json.field("problem", problem)
                .field("consequence", consequence)
                .field("corruption", corruption)
                .endLine();
    }

    @Override
    public void summary(final FrameDump dump, final boolean stoppedAtLimit) {
        json.begin()
                .field("kind", "summary")
                .field("frames", dump.frames())
                .field("records", dump.records())
                .field("segments", dump.segmentsShown())
                .field("invalid", dump.damaged() + dump.newestSegmentAnomalies())
                .field("corrupt", dump.damaged())
                .field("newestSegmentInvalid", dump.newestSegmentAnomalies())
                .field("firstProblem", dump.firstProblem())
                .field("stoppedAtLimit", stoppedAtLimit)
                .endLine();
    }

    @Override
    public boolean failed() {
        return out.failed();
    }

    private static String type(final short type) {
        if (type == TYPE_DATA) {
            return "DATA";
        }
        if (type == TYPE_PADDING) {
            return "PADDING";
        }
        if (type == TYPE_DISCARD) {
            return "DISCARD";
        }
        return String.format("unknown(0x%04x)", type & 0xFFFF);
    }
}
