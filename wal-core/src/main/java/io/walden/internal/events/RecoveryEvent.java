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
 * Opening a log: the validation of its segments and what recovery found and did, as in {@link
 * io.walden.RecoveryReport}. Emitted also when recovery refuses the log (then {@link #refusal} says
 * why).
 *
 * <p><b>Threading:</b> created and committed by the thread opening the log.
 */
@Name(RecoveryEvent.NAME)
@Label("Walden Recovery")
@Category("Walden")
@Description("Opening a log: what recovery validated, found and did")
@StackTrace(false)
public final class RecoveryEvent extends Event {
    /** The event's name in recordings. */
    public static final String NAME = "io.walden.Recovery";

    /** The log directory. */
    @Label("Directory")
    public String directory;

    /** Whether the directory held no log and a new one was created. */
    @Label("New Log")
    public boolean newLog;

    /** Whether the previous session closed the log cleanly. */
    @Label("Closed Cleanly")
    public boolean closedCleanly;

    /** Segment files validated. */
    @Label("Segments")
    public long segments;

    /** Data records validated and kept. */
    @Label("Records")
    public long records;

    /** Bytes of frames read and validated. */
    @Label("Bytes Scanned")
    @DataAmount
    public long bytesScanned;

    /** First position the log holds. */
    @Label("Start Position")
    public long startPosition;

    /** Where the next record goes. */
    @Label("End Position")
    public long endPosition;

    /** Bytes of a torn tail that held data and were cut. */
    @Label("Torn Tail Bytes Cut")
    @DataAmount
    public long tornTailBytesCut;

    /** Valid records found in the cut torn tail. */
    @Label("Torn Tail Records Cut")
    public long tornTailRecordsCut;

    /** Bytes dropped or skipped because of corruption (the TRUNCATE and SKIP policies). */
    @Label("Corrupt Bytes Dropped or Skipped")
    @DataAmount
    public long corruptBytes;

    /** The findings of the recovery report, one per line. */
    @Label("Findings")
    public String findings;

    /** Why the log was refused, or null if it opened. */
    @Label("Refusal")
    public String refusal;

    /** Begins an event if a recording has this event enabled. */
    public static RecoveryEvent beginIfEnabled() {
        final RecoveryEvent event = new RecoveryEvent();
        if (!event.isEnabled()) {
            return null;
        }
        event.begin();
        return event;
    }

    /** Fills the event from what a recovery reports. */
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
