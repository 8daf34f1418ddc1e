package io.walden.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The log failed and acknowledges nothing more until it is reopened. Instant. <b>Threading:</b> created
 * and committed by the holder of the log's I/O duty.
 */
@Name(FailStopEvent.NAME)
@Label("Walden Fail-Stop")
@Category("Walden")
@Description("The log failed and accepts nothing more until it is reopened")
@StackTrace(false)
public final class FailStopEvent extends Event {
    public static final String NAME = "io.walden.FailStop";

    @Label("Directory")
    public String directory;

    @Label("Cause")
    public String cause;

    @Label("Written Position")
    public long writtenPosition;

    @Label("Durable Position")
    public long durablePosition;
}
