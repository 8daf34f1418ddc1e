package io.walden.crash.kill;

import io.walden.WalConfig;
import io.walden.crash.ChildBackends;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The log configuration shared by the killed child and the parent that checks what it left: small
 * segments and a small buffer, so that segment rolls, preparations and truncations happen every few
 * milliseconds and a kill at a random moment often lands in one of them.
 *
 * <p><b>Threading:</b> stateless.
 */
final class KillSetup {
    /** Segment capacity: the smallest allowed, so that a segment rolls every few hundred records. */
    static final int SEGMENT_CAPACITY_BYTES = WalConfig.SEGMENT_CAPACITY_BYTES_MIN;
    /** Log buffer capacity: the smallest allowed. */
    static final int BUFFER_CAPACITY_BYTES = WalConfig.BUFFER_CAPACITY_BYTES_MIN;
    /** Largest record the child appends; a frame must fit in half the buffer. */
    static final int MAX_RECORD_BYTES = 8 * 1024;

    private KillSetup() {}

    /**
     * The configuration of the log in a directory.
     *
     * @param directory the log directory.
     * @param backendName the backend, as for {@link ChildBackends#named}.
     * @return the configuration.
     */
    static WalConfig config(final Path directory, final String backendName) {
        return WalConfig.builder(directory)
                .backend(ChildBackends.named(backendName))
                .segmentCapacityBytes(SEGMENT_CAPACITY_BYTES)
                .bufferCapacityBytes(BUFFER_CAPACITY_BYTES)
                .maxRecordBytes(MAX_RECORD_BYTES)
                .syncIntervalNs(TimeUnit.MILLISECONDS.toNanos(5))
                // With O_DSYNC, several writes in flight whenever writes wait, unmeasured: the child
                // lives too short a time for the log's probe of whether depth pays.
                .writeDepthMeasured(false)
                .build();
    }

    /**
     * The base position of the segment holding a position.
     *
     * @param position a log position.
     * @return the segment's base position.
     */
    static long segmentBase(final long position) {
        return position & -(long) SEGMENT_CAPACITY_BYTES;
    }
}
