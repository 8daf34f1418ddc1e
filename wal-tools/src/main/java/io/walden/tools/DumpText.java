package io.walden.tools;

import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;

import io.walden.format.FrameDecoder;

/**
 * {@code walden dump}'s text lines: {@code segment ...}, {@code position=... length=... type=...},
 * {@code end ...}, {@code INVALID ...} and the {@code summary} line, fields as {@code name=value}.
 *
 * <p><b>Threading:</b> the dump's thread.
 */
final class DumpText implements DumpLines {
    private final LineWriter out;

    /**
     * Creates the lines.
     *
     * @param out where they go.
     */
    DumpText(final LineWriter out) {
        this.out = out;
    }

    @Override
    public void deleted(final LogDirectory.Segment segment) {
        out.text("segment ")
                .text(segment.name())
                .text(" was deleted since the listing (the writer's retention removes old segments); skipped")
                .newline();
    }

    @Override
    public void segment(final LogDirectory.Segment segment, final SegmentHeader header, final long sizeBytes) {
        out.text("segment ")
                .text(segment.name())
                .text(" base=")
                .number(segment.base())
                .text(" capacity=")
                .number(header.capacity())
                .text(" log-id=")
                .hex(header.logId(), 16)
                .text(" version=")
                .number(header.version())
                .text(" closed-cleanly=")
                .text(header.closedCleanly() ? "yes" : "no")
                .text(" header-durable-position=")
                .number(header.durablePosition())
                .text(" write-limit=")
                .number(header.writeLimitOffset())
                .text(" continued=")
                .text(header.continued() ? "yes" : "no")
                .text(" header-checksum=")
                .text(header.checksumOk() ? "ok" : "BAD")
                .text(" size=")
                .number(sizeBytes)
                .newline();
    }

    @Override
    public void frame(
            final long position, final FrameDecoder decoder, final String codec, final PayloadOptions.Printer payload) {
        final short type = decoder.frameType();
        out.text("position=")
                .number(position)
                .text(" length=")
                .number(decoder.frameLength())
                .text(" type=");
        if (!decoder.hasHeader()) {
            out.text("PADDING flags=- durable-offset=-");
        } else {
            if (type == TYPE_DATA) {
                out.text("DATA");
            } else if (type == TYPE_PADDING) {
                out.text("PADDING");
            } else if (type == TYPE_DISCARD) {
                out.text("DISCARD");
            } else {
                out.text("unknown(0x").hex(type, 4).character(')');
            }
            out.text(" flags=").number(decoder.flags() & 0xFFFF);
            if (codec != null) {
                out.text(" codec=").text(codec.replace(' ', '_'));
            }
            out.text(" durable-offset=").number(decoder.durableOffset());
        }
        out.text(" checksum=").text(decoder.checksumMatched() ? "ok" : "BAD");
        if (payload != null) {
            payload.appendText(out);
        }
        out.newline();
    }

    @Override
    public void end(
            final LogDirectory.Segment segment,
            final long offset,
            final long frames,
            final long records,
            final String why) {
        out.text("end ")
                .text(segment.name())
                .text(" offset=")
                .number(offset)
                .text(" position=")
                .number(segment.base() + offset)
                .text(" frames=")
                .number(frames)
                .text(" records=")
                .number(records)
                .text(": ")
                .text(why)
                .newline();
    }

    @Override
    public void invalid(
            final LogDirectory.Segment segment,
            final long offset,
            final String problem,
            final String consequence,
            final boolean corruption) {
        out.text("INVALID ").text(segment.name());
        if (offset >= 0) {
            out.text(" offset=").number(offset).text(" position=").number(segment.base() + offset);
        }
        out.text(": ")
                .text(problem)
                .text("; ")
                .text(consequence)
                .text(
                        corruption
                                ? ""
                                : " (the newest segment holding data: a torn tail, or a write in progress on a"
                                        + " live log; `walden verify` judges)")
                .newline();
    }

    @Override
    public void summary(final FrameDump dump, final boolean stoppedAtLimit) {
        out.text("summary frames=")
                .number(dump.frames())
                .text(" records=")
                .number(dump.records())
                .text(" segments=")
                .number(dump.segmentsShown())
                .text(" invalid=")
                .number(dump.damaged() + dump.newestSegmentAnomalies())
                .text(stoppedAtLimit ? " (stopped at --limit)" : "")
                .newline();
    }

    @Override
    public boolean failed() {
        return out.failed();
    }
}
