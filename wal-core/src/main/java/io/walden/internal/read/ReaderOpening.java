package io.walden.internal.read;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.WalReader;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.codec.CodecTable;
import io.walden.internal.recovery.RecoveredLog;

/**
 * Opens readers on an open log, on what its current engine recovered (segment size, log id, the
 * ranges recovery skipped), refusing a closed log and a position beyond the log's end.
 *
 * <p><b>Threading:</b> immutable; called by any thread.
 */
public final class ReaderOpening {
    private final EngineHolder holder;
    private final int maxRecordBytes;
    private final CodecTable codecs;

    public ReaderOpening(final EngineHolder holder, final int maxRecordBytes, final CodecTable codecs) {
        this.holder = holder;
        this.maxRecordBytes = maxRecordBytes;
        this.codecs = codecs;
    }

    public WalReader open(final long fromLsn, final Durability visibility) {
        if (holder.isClosed()) {
            throw new WalException(
                    WalException.ErrorCode.CLOSED,
                    "the log in " + holder.directory() + " is closed: it opens no reader. Open readers before"
                            + " closing it, or read the closed log with Wal.openReadOnly(directory)");
        }
        final LogEngine e = holder.engine();
        final long tail = e.logBuffer().tailPosition();
        if (fromLsn > tail) {
            throw new WalException(
                    WalException.ErrorCode.POSITION,
                    "position " + fromLsn + " is beyond the end of the log at " + tail);
        }
        final RecoveredLog recovered = e.recovered();
        return new LogReader(
                new LogReader.Log(
                        holder.directory(),
                        recovered.logId(),
                        recovered.segmentCapacityBytes(),
                        recovered.skippedRanges(),
                        codecs),
                holder.state(),
                maxRecordBytes,
                fromLsn,
                visibility);
    }
}
