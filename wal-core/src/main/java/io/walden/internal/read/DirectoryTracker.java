package io.walden.internal.read;

import static io.walden.format.FrameDescriptor.HEADER_LENGTH;

import io.walden.Durability;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.FrameDecoder;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.segment.SegmentWindow;
import io.walden.internal.segment.SuffixTruncationRecord;
import io.walden.internal.state.LogPositions;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * Follows, read-only, the files of a log that another process may be writing, and tells its readers
 * how far records are visible: the end of the valid frames written so far ({@code WRITTEN}), and
 * the highest position those frames or the segment header prove durable ({@code SYNCED}). It takes
 * no lock and changes nothing.
 *
 * <pre>
 *   oldest ... sealed segments ... | active segment: valid frames | (in progress) zeros  | prepared next
 *                                  ^activeBase        scanOffset ^
 * </pre>
 *
 * <p>The active segment is the first one that valid frames do not fill. Each refresh validates the
 * frames written since the last one; a frame that does not validate is a write in progress, tried again
 * next time, unless a frame in the next segment proves the active one complete and durable (the roll
 * fence): then it is damage, reported to readers that reach it. Segments deleted by the writer's
 * retention are skipped; a reader that needs one learns it was truncated away.
 *
 * <p>While the record of an unfinished suffix truncation is in the directory, nothing at or after its
 * cut becomes visible: readers never see records that the next open discards.
 *
 * <p><b>Threading:</b> thread-safe; refreshes are serialized.
 */
public final class DirectoryTracker implements LogPositions, AutoCloseable {
    private static final int WINDOW_BYTES = 1024 * 1024;
    private static final long IDLE_PARK_NS_MAX = TimeUnit.MILLISECONDS.toNanos(1);

    private final Path directory;
    private final long logId;
    private final int capacityBytes;
    private final FrameDecoder decoder;
    // Owned by the refreshing thread (refresh is synchronized); grown for frames larger than it.
    private final SegmentWindow window = new SegmentWindow(WINDOW_BYTES);
    private final ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + 4)
            .order(ByteOrder.LITTLE_ENDIAN);
    // The suffix-truncation record, looked for at every refresh: a stat, with no exception when the
    // file is absent, as it nearly always is; read into the reused block when present.
    private final Path truncationRecordPath;
    private final File truncationRecordFile;
    private final ByteBuffer truncationRecordBlock = ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH);

    // Guarded by this.
    private long activeBase;
    private long scanOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
    private long provenOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
    private long writtenPosition;
    private long durablePosition;
    private WalCorruptionException damage;
    private boolean closed;
    // Run by the refreshing thread after the first scan of each refresh; a no-op but in tests.
    private final Runnable afterFirstScan;

    private DirectoryTracker(
            final Path directory,
            final long logId,
            final int capacityBytes,
            final long firstBase,
            final Runnable afterFirstScan) {
        this.directory = directory;
        this.truncationRecordPath = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        this.truncationRecordFile = truncationRecordPath.toFile();
        this.afterFirstScan = afterFirstScan;
        this.logId = logId;
        this.capacityBytes = capacityBytes;
        this.decoder = new FrameDecoder(logId);
        this.activeBase = firstBase;
        this.writtenPosition = firstBase + SegmentHeaderDescriptor.HEADER_LENGTH;
        this.durablePosition = writtenPosition;
    }

    public static DirectoryTracker open(final Path directory) {
        return open(directory, () -> {});
    }

    static DirectoryTracker open(final Path directory, final Runnable afterFirstScan) {
        return open(directory, afterFirstScan, () -> {});
    }

    /**
     * With hooks a test uses to move the writer on at moments a live writer meets only by chance: after
     * each refresh's first scan, and after the oldest segment's file was opened.
     */
    static DirectoryTracker open(
            final Path directory, final Runnable afterFirstScan, final Runnable afterOldestOpened) {
        long oldest = oldestBase(directory);
        while (true) {
            if (oldest < 0) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "no Walden log in " + directory + ": it holds no segment file (<20 digits>.wal)");
            }
            final Path path = SegmentNames.segmentPath(directory, oldest);
            final ByteBuffer block =
                    ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                afterOldestOpened.run();
                while (block.hasRemaining() && channel.read(block, block.position()) >= 0) {
                    // Fill.
                }
            } catch (final NoSuchFileException ex) {
                // Deleted by the writer's retention since the listing: start from the oldest segment left.
                final long listed = oldest;
                oldest = oldestBase(directory);
                if (oldest > listed || oldest < 0) {
                    continue;
                }
                throw new WalException(WalException.ErrorCode.IO, "cannot read " + path + ": " + ex, ex);
            } catch (final IOException ex) {
                throw new WalException(WalException.ErrorCode.IO, "cannot read " + path + ": " + ex, ex);
            }
            final String problem = block.hasRemaining()
                    ? "the file is shorter than a segment header"
                    : SegmentHeaderDecoder.validate(block.clear(), oldest);
            if (problem != null) {
                // The writer's retention may have freed that segment since the listing, and made its
                // file the next segment (recycling: a new header, another name): start again from the
                // oldest segment left. A segment still there under its name is damaged.
                final long listed = oldest;
                oldest = oldestBase(directory);
                if (oldest > listed || oldest < 0) {
                    continue;
                }
                throw new WalCorruptionException(path, 0, problem);
            }
            final DirectoryTracker tracker = new DirectoryTracker(
                    directory,
                    SegmentHeaderDecoder.logId(block),
                    SegmentHeaderDecoder.capacity(block),
                    oldest,
                    afterFirstScan);
            tracker.refresh();
            return tracker;
        }
    }

    public long logId() {
        return logId;
    }

    public int capacityBytes() {
        return capacityBytes;
    }

    @Override
    public long startPosition() {
        final long oldest = oldestBase(directory);
        return oldest < 0 ? Long.MAX_VALUE : oldest;
    }

    @Override
    public long visiblePosition(final Durability visibility) {
        refresh();
        synchronized (this) {
            return visibility == Durability.SYNCED ? durablePosition : writtenPosition;
        }
    }

    @Override
    public boolean awaitVisible(final long position, final Durability visibility, final long timeoutNs) {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        final IdleStrategy idle = new BackoffIdleStrategy(10, 10, 1_000, IDLE_PARK_NS_MAX);
        while (true) {
            if (visiblePosition(visibility) > position || damageAt(position) != null) {
                return true;
            }
            if (System.nanoTime() - deadlineNs >= 0) {
                return false;
            }
            idle.idle();
        }
    }

    @Override
    public synchronized WalException damageAt(final long position) {
        return damage != null && position >= writtenPosition ? damage : null;
    }

    /** Validates what was written since the last refresh and moves the visible positions. */
    public synchronized void refresh() {
        if (closed || damage != null) {
            return;
        }
        try {
            while (true) {
                final Path path = SegmentNames.segmentPath(directory, activeBase);
                try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                    scan(channel);
                    readHeader(channel);
                    afterFirstScan.run();
                    if (!nextHoldsAFrame()) {
                        break;
                    }
                    if (scanOffset < capacityBytes) {
                        // The writer writes to the next segment only once this one is complete and synced,
                        // so all of this one was in the file before that frame was seen, but the scan above
                        // may have run before the writer finished it: scan again before judging.
                        scan(channel);
                    }
                    if (scanOffset < capacityBytes && completeFromItsStart(channel)) {
                        // A suffix truncation replaced frames this tracker had passed with a discard
                        // frame that starts before them; from its first frame the segment is complete.
                        moveTo(activeBase + capacityBytes);
                        continue;
                    }
                    if (scanOffset < capacityBytes) {
                        if (!Files.exists(path)) {
                            // Freed by the writer's retention while this refresh read it: the file may be
                            // a recycled segment's by now, whose bytes are no damage of this one.
                            throw new NoSuchFileException(path.toString());
                        }
                        if (slotWritten(channel, scanOffset)) {
                            damage = new WalCorruptionException(
                                    path,
                                    scanOffset,
                                    "a frame that does not validate, but the later segment "
                                            + SegmentNames.segmentName(activeBase + capacityBytes) + " holds data,"
                                            + " and no byte is written to a segment before the one before it is"
                                            + " complete and synced");
                        }
                        break;
                    }
                } catch (final NoSuchFileException ex) {
                    // Deleted by the writer's retention: follow from the oldest segment left.
                    final long oldest = oldestBase(directory);
                    if (oldest > activeBase) {
                        moveTo(oldest);
                        continue;
                    }
                    return;
                }
                // The next segment holds a frame: this one is complete and, by the roll fence, durable.
                moveTo(activeBase + capacityBytes);
            }
        } catch (final IOException ex) {
            throw new WalException(WalException.ErrorCode.IO, "cannot read the log in " + directory + ": " + ex, ex);
        }
        final long scanned = activeBase + scanOffset;
        final long cut = pendingCutPosition();
        // Positions never move back: a cut recorded after they passed it changes nothing already seen.
        writtenPosition = Math.max(writtenPosition, cut >= 0 ? Math.min(scanned, cut) : scanned);
        durablePosition = Math.min(writtenPosition, Math.max(durablePosition, activeBase + provenOffset));
    }

    /** The cut position of a pending suffix truncation of this log, or -1 if there is none. */
    private long pendingCutPosition() {
        if (!truncationRecordFile.exists()) {
            return -1;
        }
        final ByteBuffer block = truncationRecordBlock.clear();
        try (FileChannel channel = FileChannel.open(truncationRecordPath, StandardOpenOption.READ)) {
            while (block.hasRemaining() && channel.read(block, block.position()) >= 0) {
                // Fill.
            }
        } catch (final NoSuchFileException ex) {
            return -1;
        } catch (final IOException ex) {
            throw new WalException(WalException.ErrorCode.IO, "cannot read " + truncationRecordPath + ": " + ex, ex);
        }
        if (block.hasRemaining()) {
            // Shorter than a record: not a valid one (and the block's tail still holds an older read).
            return -1;
        }
        try {
            final SuffixTruncationRecord record = SuffixTruncationRecord.read(block.clear(), capacityBytes);
            return record.logId() == logId ? record.cutPosition() : -1;
        } catch (final IllegalArgumentException ex) {
            // Not a valid record of this log: an open refuses it; readers see the segments as they are.
            return -1;
        }
    }

    /**
     * Whether valid frames fill the active segment from its first frame on, scanning it again (the scan
     * position stays if not). Cold: only when the next segment holds a frame.
     */
    private boolean completeFromItsStart(final FileChannel channel) throws IOException {
        final long keptScanOffset = scanOffset;
        final long keptProvenOffset = provenOffset;
        scanOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
        scan(channel);
        if (scanOffset == capacityBytes) {
            return true;
        }
        scanOffset = keptScanOffset;
        provenOffset = keptProvenOffset;
        return false;
    }

    private void moveTo(final long base) {
        activeBase = base;
        scanOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
        provenOffset = SegmentHeaderDescriptor.HEADER_LENGTH;
        durablePosition = Math.max(durablePosition, base + SegmentHeaderDescriptor.HEADER_LENGTH);
    }

    /** Validates frames from the scan offset on, by {@link FrameDecoder}'s rules. */
    private void scan(final FileChannel channel) throws IOException {
        window.bind(channel, capacityBytes, Long.MAX_VALUE);
        while (scanOffset < capacityBytes) {
            if (scanOffset < window.startOffset() || scanOffset + HEADER_LENGTH > window.filledEnd()) {
                window.fill(scanOffset, capacityBytes);
            }
            FrameDecoder.Verdict verdict = decode();
            if (verdict == FrameDecoder.Verdict.MORE_BYTES) {
                // The frame runs past the window: read from its start, into a larger window if it needs one
                // (a padding frame may be as long as a buffer lap), rarely.
                if (decoder.bytesNeeded() > window.capacityBytes()) {
                    window.grow(decoder.bytesNeeded());
                }
                window.fill(scanOffset, capacityBytes);
                verdict = decode();
            }
            if (verdict != FrameDecoder.Verdict.FRAME) {
                return;
            }
            if (decoder.hasHeader()) {
                provenOffset = Math.max(provenOffset, decoder.durableOffset());
            }
            scanOffset += decoder.alignedLength();
        }
    }

    /** The durable position and clean close the active segment's header records. */
    private void readHeader(final FileChannel channel) throws IOException {
        header.clear();
        while (header.hasRemaining() && channel.read(header, header.position()) >= 0) {
            // Fill.
        }
        if (header.hasRemaining()) {
            return;
        }
        header.clear();
        if (!SegmentHeaderDecoder.checksumMatches(header)) {
            // Read while the writer rewrote it: try again at the next refresh.
            return;
        }
        final long durable = header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
        if (durable > activeBase && durable <= activeBase + capacityBytes) {
            provenOffset = Math.max(provenOffset, durable - activeBase);
        }
    }

    private boolean nextHoldsAFrame() throws IOException {
        final Path next = SegmentNames.segmentPath(directory, activeBase + capacityBytes);
        if (!Files.exists(next)) {
            return false;
        }
        try {
            return slotWritten(next, SegmentHeaderDescriptor.HEADER_LENGTH);
        } catch (final NoSuchFileException ex) {
            return false;
        }
    }

    private static boolean slotWritten(final Path path, final long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return slotWritten(channel, offset);
        }
    }

    /** Whether the frame slot at an offset holds anything (a non-zero length); false past the file's end. */
    private static boolean slotWritten(final FileChannel channel, final long offset) throws IOException {
        final ByteBuffer length = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        channel.read(length, offset);
        return !length.hasRemaining() && FrameDecoder.slotWritten(length, 0);
    }

    private FrameDecoder.Verdict decode() {
        return decoder.decode(
                window.buffer(),
                window.index(scanOffset),
                window.available(scanOffset),
                activeBase,
                scanOffset,
                capacityBytes);
    }

    private static long oldestBase(final Path directory) {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.mapToLong(path ->
                            SegmentNames.parseSegmentName(path.getFileName().toString()))
                    .filter(base -> base >= 0)
                    .min()
                    .orElse(-1);
        } catch (final NoSuchFileException ex) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, directory + " does not exist: no Walden log there", ex);
        } catch (final IOException ex) {
            throw new WalException(WalException.ErrorCode.IO, "cannot list " + directory + ": " + ex, ex);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            window.close();
        }
    }
}
