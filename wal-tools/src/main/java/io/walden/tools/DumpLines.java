package io.walden.tools;

import io.walden.format.FrameDecoder;

/**
 * What {@link FrameDump} prints, one call per line: as text ({@link DumpText}) or as one JSON object
 * per line ({@link DumpJson}). The dump decides what to say; this says it.
 *
 * <p><b>Threading:</b> the dump's thread.
 */
interface DumpLines {
    /**
     * A segment file that a writer's retention deleted between the listing and the dump.
     *
     * @param segment the segment as listed.
     */
    void deleted(LogDirectory.Segment segment);

    /**
     * A segment's header, before its frames.
     *
     * @param segment the segment as listed.
     * @param header its header as read.
     * @param sizeBytes the file's size now.
     */
    void segment(LogDirectory.Segment segment, SegmentHeader header, long sizeBytes);

    /**
     * The frame the decoder just judged, valid or not.
     *
     * @param position its position.
     * @param decoder the decoder, holding the frame's fields.
     * @param codec the name of the codec that encoded a data frame\'s payload, or null if it is stored as given.
     * @param payload the printer holding the frame's payload, or null if no payload shows.
     */
    void frame(long position, FrameDecoder decoder, String codec, PayloadOptions.Printer payload);

    /**
     * The end of a segment's frames.
     *
     * @param segment the segment.
     * @param offset where its frames end.
     * @param frames how many frames of it were shown.
     * @param records how many of them were data records.
     * @param why why they end there, a phrase.
     */
    void end(LogDirectory.Segment segment, long offset, long frames, long records, String why);

    /**
     * Bytes that are not a valid frame, or a segment that is not valid.
     *
     * @param segment the segment.
     * @param offset the offset of the problem in it, or -1 for a problem of the segment as a whole.
     * @param problem what is wrong, in recovery's words.
     * @param consequence what the dump does about it.
     * @param corruption true for corruption; false for the end of the newest segment holding data (a
     *     torn tail, or a write in progress).
     */
    void invalid(LogDirectory.Segment segment, long offset, String problem, String consequence, boolean corruption);

    /**
     * The last line.
     *
     * @param dump the dump, for its counts and its first problem.
     * @param stoppedAtLimit whether {@code --limit} stopped it.
     */
    void summary(FrameDump dump, boolean stoppedAtLimit);

    /**
     * Whether the output is gone (a closed pipe): the dump stops.
     *
     * @return true once a write failed.
     */
    boolean failed();
}
