package io.walden.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The preparation of a segment ahead of need, from start to ready. <b>Threading:</b> created, ended and
 * committed by the holder of the log's I/O duty.
 */
@Name(SegmentPreparationEvent.NAME)
@Label("Walden Segment Preparation")
@Category("Walden")
@Description("A segment prepared ahead of need, from the creation of its temporary file to ready")
@StackTrace(false)
public final class SegmentPreparationEvent extends Event {
    public static final String NAME = "io.walden.SegmentPreparation";

    private static final SegmentPreparationEvent PROBE = new SegmentPreparationEvent();

    @Label("Directory")
    public String directory;

    @Label("Base Position")
    public long basePosition;

    /** Whether the file system allocated the whole segment up front (fallocate). */
    @Label("Allocated")
    public boolean allocated;

    /** Whether the segment was made from a file retention freed. */
    @Label("Recycled")
    public boolean recycled;

    public static SegmentPreparationEvent beginIfEnabled() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        final SegmentPreparationEvent event = new SegmentPreparationEvent();
        event.begin();
        return event;
    }
}
