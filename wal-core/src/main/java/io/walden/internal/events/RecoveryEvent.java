package io.walden.internal.events;

import io.walden.RecoveryReport;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Opening a log: each field is the {@link io.walden.RecoveryReport} component of its name; emitted also
 * when recovery refuses the log ({@link #refusal}). <b>Threading:</b> the opening thread.
 */
@Name(RecoveryEvent.NAME)
@Label("Walden Recovery")
@Category("Walden")
@Description("Opening a log: what recovery validated, found and did")
@StackTrace(false)
public final class RecoveryEvent extends Event {
    public static final String NAME = "io.walden.Recovery";

    @Label("Directory")
    public String directory;

    @Label("New Log")
    public boolean newLog;

    @Label("Closed Cleanly")
    public boolean closedCleanly;

    @Label("Segments")
    public long segments;

    @Label("Records")
    public long records;

    @Label("Bytes Scanned")
    @DataAmount
    public long bytesScanned;

    @Label("Start Position")
    public long startPosition;

    @Label("End Position")
    public long endPosition;

    @Label("Torn Tail Bytes Cut")
    @DataAmount
    public long tornTailBytesCut;

    @Label("Torn Tail Records Cut")
    public long tornTailRecordsCut;

    /** {@code droppedBytes} plus {@code skippedBytes}. */
    @Label("Corrupt Bytes Dropped or Skipped")
    @DataAmount
    public long corruptBytes;

    /** One finding per line. */
    @Label("Findings")
    public String findings;

    /** Why the log was refused, or null if it opened. */
    @Label("Refusal")
    public String refusal;

    public static RecoveryEvent beginIfEnabled() {
        final RecoveryEvent event = new RecoveryEvent();
        if (!event.isEnabled()) {
            return null;
        }
        event.begin();
        return event;
    }

    public void describe(final RecoveryReport report) {
        newLog = report.newLog();
        closedCleanly = report.closedCleanly();
        segments = report.segments();
        records = report.records();
        bytesScanned = report.bytesScanned();
        startPosition = report.startPosition();
        endPosition = report.endPosition();
        tornTailBytesCut = report.tornTailBytesCut();
        tornTailRecordsCut = report.tornTailRecordsCut();
        corruptBytes = report.droppedBytes() + report.skippedBytes();
        findings = String.join("\n", report.findings());
    }
}
