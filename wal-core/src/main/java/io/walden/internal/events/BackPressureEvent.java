package io.walden.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * An append that found the log buffer full and waited for space, with the appending thread's stack
 * trace. <b>Threading:</b> created and committed by the appending thread.
 */
@Name(BackPressureEvent.NAME)
@Label("Walden Back-Pressure Wait")
@Category("Walden")
@Description("An append that found the log buffer full and waited for the disk to free space")
public final class BackPressureEvent extends Event {
    public static final String NAME = "io.walden.BackPressure";

    private static final BackPressureEvent PROBE = new BackPressureEvent();

    @Label("Directory")
    public String directory;

    /** Bytes the append asked for (its aligned frame). */
    @Label("Frame Bytes")
    @DataAmount
    public long frameBytes;

    @Label("Buffer Capacity")
    @DataAmount
    public long bufferCapacityBytes;

    /** Whether space was found before the append timeout. */
    @Label("Got Space")
    public boolean gotSpace;

    public static BackPressureEvent beginIfEnabled() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        final BackPressureEvent event = new BackPressureEvent();
        event.begin();
        return event;
    }
}
