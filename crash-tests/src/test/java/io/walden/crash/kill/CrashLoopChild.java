package io.walden.crash.kill;

import io.walden.Durability;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.testing.TestRecords;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * The child of {@link CrashLoopKillTest}: a service that crashes in a loop. It opens the log with the
 * default settings, says what the open found, appends a few {@code SYNCED} records and says each
 * acknowledgement, then waits to be killed.
 *
 * <pre>
 *   R segments bytesScanned durationNs endPosition     after the open
 *   A sequence lsn                                      each acknowledgement
 *   D                                                   all appended: kill me
 * </pre>
 *
 * <p>Arguments: the log directory, the cycle (the writer tag of its records), the record count.
 */
public final class CrashLoopChild {
    private CrashLoopChild() {}

    /**
     * Runs the child.
     *
     * @param args directory, cycle, record count.
     */
    public static void main(final String[] args) {
        final Path directory = Path.of(args[0]);
        final int cycle = Integer.parseInt(args[1]);
        final int records = Integer.parseInt(args[2]);
        final Wal wal = Wal.open(WalConfig.builder(directory).build());
        final RecoveryReport report = wal.recoveryReport();
        System.out.println("R " + report.segments() + " " + report.bytesScanned() + " " + report.durationNs() + " "
                + report.endPosition());
        for (int i = 0; i < records; i++) {
            final long lsn = wal.append(TestRecords.tagged(cycle, i, TestRecords.TAG_LENGTH + 100), Durability.SYNCED);
            System.out.println("A " + i + " " + lsn);
        }
        System.out.println("D");
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
