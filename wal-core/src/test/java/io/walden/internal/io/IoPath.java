package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageCapabilities;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * One log's I/O path for a unit test, built by {@link IoParts} as an open log builds it, over a
 * {@link HeldCompletionSession} on real files in a test's directory: 64 KiB segments and a 64 KiB log
 * buffer, the active segment opened as recovery leaves it. The test publishes frames, runs rounds of
 * the kind it chooses at a time it sets ({@link #nowNs}: no round reads the clock for a decision the
 * test pins), and delivers completions when it says.
 *
 * <p><b>Threading:</b> one thread.
 */
final class IoPath implements AutoCloseable {
    static final int SEGMENT = 64 * 1024;
    static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    static final long LOG_ID = 0x5eed_1234L;
    /** The payload of a frame of exactly 4 KiB. */
    static final int PAGE_PAYLOAD = 4096 - FrameDescriptor.HEADER_LENGTH;

    final Path directory;
    final HeldCompletionSession session;
    final LogBuffer logBuffer;
    final LogState state;
    final StatsCounters stats = new StatsCounters();
    final IoRound round;
    final IoPositions positions;
    /** The time every round is run at; a test moves it. */
    long nowNs;

    private boolean buffersClosed;

    /** A path whose log continues at the first frame position of segment 0. */
    IoPath(final Path directory, final HeldCompletionSession session) throws IOException {
        this(directory, session, HEADER, false);
    }

    /**
     * A path whose log continues at a position of its first segment.
     *
     * @param directory the log's directory.
     * @param session the session, configured before the path is built.
     * @param endPosition where the log continues, in segment 0.
     * @param nextSegmentPrepared whether recovery found segment 1 prepared (its file is made so).
     */
    IoPath(
            final Path directory,
            final HeldCompletionSession session,
            final long endPosition,
            final boolean nextSegmentPrepared)
            throws IOException {
        this(directory, session, endPosition, nextSegmentPrepared, WalConfig.MAX_BATCH_BYTES_DEFAULT);
    }

    /**
     * A path whose log continues at a position of its first segment, with a batch limit.
     *
     * @param directory the log's directory.
     * @param session the session, configured before the path is built.
     * @param endPosition where the log continues, in segment 0.
     * @param nextSegmentPrepared whether recovery found segment 1 prepared (its file is made so).
     * @param maxBatchBytes the most bytes one write covers.
     */
    IoPath(
            final Path directory,
            final HeldCompletionSession session,
            final long endPosition,
            final boolean nextSegmentPrepared,
            final int maxBatchBytes)
            throws IOException {
        this(directory, session, endPosition, nextSegmentPrepared, builder -> builder.maxBatchBytes(maxBatchBytes));
    }

    /**
     * A path whose log continues at a position of its first segment, with settings of its own.
     *
     * @param directory the log's directory.
     * @param session the session, configured before the path is built.
     * @param endPosition where the log continues, in segment 0.
     * @param nextSegmentPrepared whether recovery found segment 1 prepared (its file is made so).
     * @param settings sets what the test needs on the configuration (segment capacity {@link #SEGMENT},
     *     no group return wait).
     */
    IoPath(
            final Path directory,
            final HeldCompletionSession session,
            final long endPosition,
            final boolean nextSegmentPrepared,
            final Consumer<WalConfig.Builder> settings)
            throws IOException {
        this.directory = directory;
        this.session = session;
        final WalConfig.Builder builder =
                WalConfig.builder(directory).segmentCapacityBytes(SEGMENT).groupReturnWait(false);
        settings.accept(builder);
        final WalConfig config = builder.build();
        final int activeHandle = session.openFile(SegmentNames.segmentPath(directory, 0), true);
        final int nextHandle =
                nextSegmentPrepared ? session.openFile(SegmentNames.segmentPath(directory, SEGMENT), true) : -1;
        final StorageCapabilities capabilities = session.capabilities();
        final long released =
                capabilities.directIo() ? endPosition & -(long) capabilities.blockSizeBytes() : endPosition;
        this.logBuffer = new LogBuffer(config.bufferCapacityBytes(), SEGMENT, endPosition, released);
        this.state = new LogState(0, endPosition, 0);
        final RecoveredLog recovered = new RecoveredLog(
                LOG_ID, SEGMENT, 0, 0, activeHandle, nextHandle, endPosition, 0, new long[0], null, false, null);
        this.round = new IoRound(config, session, capabilities, logBuffer, state, stats, recovered);
        this.positions = round.positions();
        this.nowNs = System.nanoTime();
        session.operations().clear();
    }

    /**
     * Claims and publishes a frame.
     *
     * @param payloadBytes its payload's length.
     * @return its position.
     */
    long append(final int payloadBytes) {
        final long position =
                logBuffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + payloadBytes));
        assertTrue(position >= 0, "claim refused: " + position);
        final byte[] payload = new byte[payloadBytes];
        Arrays.fill(payload, (byte) 0x5A);
        logBuffer.publish(position, payload, 0, payloadBytes);
        return position;
    }

    /**
     * Claims and publishes a frame of exactly 4 KiB.
     *
     * @return where it ends.
     */
    long appendPage() {
        return append(PAGE_PAYLOAD) + 4096;
    }

    /** Fills segment 0 with frames of 4 KiB, to its end. */
    void fillFirstSegment() {
        while (logBuffer.tailPosition() < SEGMENT) {
            appendPage();
        }
    }

    /** Runs one round of a kind ({@link IoRound#IO_THREAD}, {@link IoRound#CALLER}, {@link IoRound#COMPLETION}). */
    int run(final IoRound.Kind kind) {
        return round.run(nowNs, kind);
    }

    /** Runs one round of the I/O thread. */
    int run() {
        return run(IoRound.Kind.IO_THREAD);
    }

    /** Runs rounds of a kind. */
    void run(final IoRound.Kind kind, final int rounds) {
        for (int i = 0; i < rounds; i++) {
            run(kind);
        }
    }

    /** An appender asks for everything below a position to be durable. */
    void requestSync(final long position) {
        state.countSyncRequest();
        state.requestSync(position);
    }

    /** @return the bytes of segment 0's file from a file offset. */
    byte[] firstSegmentBytes(final long fileOffset, final int length) throws IOException {
        final byte[] content = Files.readAllBytes(directory.resolve(segmentName(0)));
        return Arrays.copyOfRange(content, (int) fileOffset, (int) fileOffset + length);
    }

    /** @return the bytes the log buffer holds from a log position. */
    byte[] bufferBytes(final long position, final int length) {
        final byte[] bytes = new byte[length];
        logBuffer.buffer().getBytes(logBuffer.offset(position), bytes);
        return bytes;
    }

    /** @return the file name of a segment. */
    static String segmentName(final long base) {
        return SegmentNames.segmentName(base);
    }

    /** @return the file name of a segment under preparation, which its handle keeps after the rename. */
    static String temporaryName(final long base) {
        return SegmentNames.temporaryName(base);
    }

    /** The test closed the buffers itself (through {@link IoShutdown}). */
    void buffersClosed() {
        buffersClosed = true;
    }

    @Override
    public void close() {
        session.close();
        if (!buffersClosed) {
            round.preparer.close();
            round.marker.close();
            round.writes.close();
        }
        logBuffer.close();
    }
}
