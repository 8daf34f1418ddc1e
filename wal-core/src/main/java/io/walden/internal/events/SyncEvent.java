package io.walden.internal.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One operation that made written records durable (fdatasync, or an O_DSYNC write), from submission to
 * completion. <b>Threading:</b> created, ended and committed by the holder of the log's I/O duty.
 */
@Name(SyncEvent.NAME)
@Label("Walden Sync")
@Category("Walden")
@Description("An operation that made written records durable: fdatasync, or a write with O_DSYNC")
@StackTrace(false)
public final class SyncEvent extends Event {
    public static final String NAME = "io.walden.Sync";

    private static final SyncEvent PROBE = new SyncEvent();

    @Label("Directory")
    public String directory;

    /** {@code fdatasync} or {@code O_DSYNC write}. */
    @Label("Method")
    public String method;

    /** Bytes of the log newly made durable. */
    @Label("Bytes")
    @DataAmount
    public long bytes;

    /** Records newly made durable. */
    @Label("Records")
    public long records;

    /** Appends that asked for a sync since the last one was submitted; 0 for a durable write. */
    @Label("Waiters")
    public long waiters;

    @Label("Durable Position")
    public long durablePosition;

    public static SyncEvent beginIfEnabled() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        final SyncEvent event = new SyncEvent();
        event.begin();
        return event;
    }
}
