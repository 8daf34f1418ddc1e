package io.walden.internal.append;

import io.walden.WalException;
import io.walden.internal.events.BackPressureEvent;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import java.nio.file.Path;

/**
 * Claims space for an appender's frames in a log buffer, waiting while the buffer is full up to the
 * append timeout, and reporting the wait (a count, and a Flight Recorder event when enabled). Allocates
 * nothing unless the event is enabled or the wait times out.
 *
 * <p><b>Threading:</b> immutable; called by any appending thread.
 */
public final class BufferClaim {
    private final Path directory;
    private final LogState state;
    private final StatsCounters stats;
    private final long appendTimeoutNs;

    public BufferClaim(
            final Path directory, final LogState state, final StatsCounters stats, final long appendTimeoutNs) {
        this.directory = directory;
        this.state = state;
        this.stats = stats;
        this.appendTimeoutNs = appendTimeoutNs;
    }

    /**
     * Claims contiguous space, waiting while the buffer is full up to the append timeout. A refusal
     * (the timeout, no space for the next segment, an interrupt) claims nothing.
     */
    public long claim(final LogBuffer logBuffer, final Runnable ioWake, final int alignedLength) {
        long lsn = logBuffer.claim(alignedLength);
        if (lsn == LogBuffer.BACK_PRESSURED) {
            stats.recordBackPressureWait();
            final BackPressureEvent event = BackPressureEvent.beginIfEnabled();
            lsn = state.awaitClaim(logBuffer, alignedLength, System.nanoTime() + appendTimeoutNs, ioWake);
            if (event != null) {
                event.end();
                if (event.shouldCommit()) {
                    event.directory = directory.toString();
                    event.frameBytes = alignedLength;
                    event.bufferCapacityBytes = logBuffer.capacityBytes();
                    event.gotSpace = lsn != LogBuffer.BACK_PRESSURED;
                    event.commit();
                }
            }
        }
        if (lsn == LogBuffer.BACK_PRESSURED) {
            final String shortage = state.spaceShortage();
            if (shortage != null) {
                throw new WalException(
                        WalException.ErrorCode.STORAGE_SPACE,
                        "append waited " + appendTimeoutNs / 1_000_000 + " ms (appendTimeoutNs) for space: " + shortage
                                + "; the record was not appended");
            }
            throw new WalException(
                    WalException.ErrorCode.BACK_PRESSURE_TIMEOUT,
                    "append waited " + appendTimeoutNs / 1_000_000 + " ms (appendTimeoutNs) for space in the "
                            + logBuffer.capacityBytes() + "-byte log buffer (bufferCapacityBytes) of "
                            + directory
                            + ": the disk is slower than the appenders; slow down, or raise appendTimeoutNs");
        }
        return lsn;
    }
}
