package io.walden.internal.io;

import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.nio.file.Path;

/**
 * What the stages of one log's I/O path share, and nothing else: the storage session and its
 * capabilities (read once), the log buffer, the log's state and counters, the I/O positions, the
 * directory and the segment capacity. Each stage is handed the stages it talks to by name ({@link
 * IoRound} builds them).
 *
 * <p><b>Threading:</b> immutable; what its fields hold is owned as each class says.
 */
record IoShared(
        StorageSession session,
        StorageCapabilities capabilities,
        LogBuffer logBuffer,
        LogState state,
        StatsCounters stats,
        IoPositions positions,
        Path directory,
        long segmentCapacityBytes) {}
