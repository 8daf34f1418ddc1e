package io.walden.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** The log moved from a full segment to the next one. Instant. <b>Threading:</b> the duty holder. */
@Name(SegmentRollEvent.NAME)
@Label("Walden Segment Roll")
@Category("Walden")
@Description("The log moved from a full segment to the next one")
@StackTrace(false)
public final class SegmentRollEvent extends Event {
    public static final String NAME = "io.walden.SegmentRoll";

    private static final SegmentRollEvent PROBE = new SegmentRollEvent();

    @Label("Directory")
    public String directory;

    @Label("From Base Position")
    public long fromBasePosition;

    @Label("To Base Position")
    public long toBasePosition;

    /** From the full segment being written and synced to the next one being ready; 0 if it was ready. */
    @Label("Waited for Preparation")
    @Timespan(Timespan.NANOSECONDS)
    public long waitedNs;

    public static boolean enabled() {
        return PROBE.isEnabled();
    }
}
