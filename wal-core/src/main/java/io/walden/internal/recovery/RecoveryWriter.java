package io.walden.internal.recovery;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.PendingWrite;
import io.walden.internal.segment.SegmentFill;
import io.walden.internal.segment.SegmentHeaders;
import io.walden.internal.state.AlignedBuffer;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.NavigableSet;
import org.agrona.BufferUtil;

/**
 * Every write a recovery makes to a log's segment files, through the storage session: zeroing a
 * range, a discard frame, a header's state, and new segments (empty, or holding one discard frame). Zeroing, discard frames and headers are left unsynced, so that the caller orders
 * the syncs; a new segment is synced and in place, directory synced, when its method returns.
 *
 * <p><b>Threading:</b> the opening thread, which owns the session until the I/O thread starts.
 */
final class RecoveryWriter {
    private static final int BLOCK_BYTES = SegmentHeaderDescriptor.HEADER_LENGTH;

    private final Path directory;
    private final StorageSession session;
    private final BlockingIo io;
    private final long logId;
    private final int capacityBytes;
    private final boolean zeroFill;

    RecoveryWriter(
            final Path directory,
            final StorageSession session,
            final BlockingIo io,
            final long logId,
            final int capacityBytes,
            final boolean zeroFill) {
        this.directory = directory;
        this.session = session;
        this.io = io;
        this.logId = logId;
        this.capacityBytes = capacityBytes;
        this.zeroFill = zeroFill;
    }

    /** Zeroes [from, to) in small block-aligned writes, rewriting the bytes around it as they are. */
    void zeroRange(final int handle, final Path path, final long fromOffset, final long toOffset) throws IOException {
        final long alignedStart = fromOffset & ~(BLOCK_BYTES - 1L);
        final long alignedEnd = Math.min(capacityBytes, (toOffset + BLOCK_BYTES - 1) & ~(BLOCK_BYTES - 1L));
        // Small writes: see SegmentFill.PREPARE_WRITE_BYTES (appends go on in this range).
        final int chunkBytes = SegmentFill.PREPARE_WRITE_BYTES;
        try (AlignedBuffer chunkMemory = new AlignedBuffer(chunkBytes);
                FileChannel reader = FileChannel.open(path, StandardOpenOption.READ)) {
            final ByteBuffer chunk = chunkMemory.buffer();
            for (long offset = alignedStart; offset < alignedEnd; offset += chunkBytes) {
                final int length = (int) Math.min(chunkBytes, alignedEnd - offset);
                chunk.clear().limit(length);
                if (offset < fromOffset || offset + length > toOffset) {
                    FileReads.readFully(reader, chunk, offset);
                }
                for (int i = 0; i < length; i++) {
                    if (offset + i >= fromOffset && offset + i < toOffset) {
                        chunk.put(i, (byte) 0);
                    }
                }
                io.write(handle, offset, chunk, length);
            }
        }
    }

    /**
     * Zeroes [from, to) from its end down, in steps that start at the given offsets, syncing after
     * each step but the last (why: {@link TailRepair#cutAndDiscard}).
     */
    void zeroDownInSteps(
            final int handle,
            final Path path,
            final long fromOffset,
            final long toOffset,
            final NavigableSet<Long> steps)
            throws IOException {
        long top = toOffset;
        for (final long step : steps.descendingSet()) {
            if (step > fromOffset && step < top) {
                zeroRange(handle, path, step, top);
                io.sync(handle);
                top = step;
            }
        }
        zeroRange(handle, path, fromOffset, top);
    }

    void writeDiscardFrame(final int handle, final Path path, final long base, final long offset) throws IOException {
        writeDiscardFrame(handle, path, base, offset, capacityBytes);
    }

    /**
     * Writes a discard frame at an offset that covers the positions up to an end offset (the
     * segment's end by default, or a write limit where the log continues). The bytes it covers must
     * be zero already.
     */
    void writeDiscardFrame(final int handle, final Path path, final long base, final long offset, final long endOffset)
            throws IOException {
        final PendingWrite blocks = discardFrameBlocks(path, base, offset, endOffset);
        if (blocks != null) {
            io.write(handle, blocks.fileOffset(), blocks.blocks(), blocks.lengthBytes());
        }
    }

    /**
     * The blocks {@link #writeDiscardFrame} writes (null if the frame covers nothing): the bytes before
     * the offset as the file holds them, the frame's header, the zeros after it.
     */
    PendingWrite discardFrameBlocks(final Path path, final long base, final long offset, final long endOffset)
            throws IOException {
        if (offset >= endOffset) {
            return null;
        }
        final long blockStart = offset & -(long) BLOCK_BYTES;
        // The frame's header (or, with 8 bytes left, its short padding) ends within the segment, whose
        // capacity is a multiple of the block: the write never runs past the segment's end.
        final long frameEnd = Math.min(offset + FrameDescriptor.HEADER_LENGTH, endOffset);
        final long blockEnd = (frameEnd + BLOCK_BYTES - 1) & -(long) BLOCK_BYTES;
        final ByteBuffer block = BufferUtil.allocateDirectAligned((int) (blockEnd - blockStart), BLOCK_BYTES);
        try (FileChannel reader = FileChannel.open(path, StandardOpenOption.READ)) {
            FileReads.readFully(reader, block, blockStart);
        }
        DiscardFrames.write(block, (int) (offset - blockStart), base + offset, offset, (int) endOffset, logId);
        block.clear();
        return new PendingWrite(blockStart, block, base + offset, base + endOffset);
    }

    /**
     * Writes a padding frame at an offset that covers the positions up to an end offset, whose bytes
     * must be zero already; writes only the blocks of its header (the checksum covers the whole frame).
     */
    void writePaddingFrame(final int handle, final Path path, final long base, final long offset, final long endOffset)
            throws IOException {
        if (offset >= endOffset) {
            return;
        }
        final long blockStart = offset & -(long) BLOCK_BYTES;
        final long frameBlockEnd = (endOffset + BLOCK_BYTES - 1) & -(long) BLOCK_BYTES;
        final long headerEnd = Math.min(offset + FrameDescriptor.HEADER_LENGTH, endOffset);
        final long headerBlockEnd = (headerEnd + BLOCK_BYTES - 1) & -(long) BLOCK_BYTES;
        try (AlignedBuffer memory = new AlignedBuffer((int) (frameBlockEnd - blockStart));
                FileChannel reader = FileChannel.open(path, StandardOpenOption.READ)) {
            final ByteBuffer blocks = memory.buffer();
            FileReads.readFully(reader, blocks, blockStart);
            DiscardFrames.writePadding(
                    blocks, (int) (offset - blockStart), base + offset, offset, (int) endOffset, logId);
            io.write(handle, blockStart, blocks, (int) (headerBlockEnd - blockStart));
        }
    }

    void writeHeaderLimit(final int handle, final ByteBuffer header, final int limitOffset) throws IOException {
        try (AlignedBuffer memory = new AlignedBuffer(BLOCK_BYTES)) {
            final ByteBuffer block = memory.buffer();
            block.put(header.clear());
            SegmentHeaders.writeLimitAndContinued(block, limitOffset, SegmentHeaderDecoder.continued(block));
            io.write(handle, 0, block, BLOCK_BYTES);
        }
    }

    void writeHeaderState(
            final int handle, final ByteBuffer header, final long durablePosition, final boolean closedCleanly)
            throws IOException {
        try (AlignedBuffer memory = new AlignedBuffer(BLOCK_BYTES)) {
            final ByteBuffer block = memory.buffer();
            block.put(header.clear());
            SegmentHeaders.writeState(block, durablePosition, closedCleanly);
            io.write(handle, 0, block, BLOCK_BYTES);
        }
    }

    /**
     * Prepares a new segment, synchronously, as {@link io.walden.internal.io.SegmentPreparer} does: a
     * temporary file allocated where the backend can (else its last block written: a hole before it,
     * which reads as zeros), its header, synced, renamed into place, the directory synced. Zero-filled
     * only with {@link io.walden.WalConfig#zeroFillSegments}; the caller records the session's limit.
     */
    int prepareSegment(final long base) throws IOException {
        final Path temporary = directory.resolve(SegmentNames.temporaryName(base));
        final int handle = session.openFile(temporary, true);
        try (AlignedBuffer memory = new AlignedBuffer(BLOCK_BYTES)) {
            final ByteBuffer block = memory.buffer();
            final boolean allocated = io.allocate(handle, 0, capacityBytes) == capacityBytes;
            SegmentHeaders.write(block, capacityBytes, base, logId);
            io.write(handle, 0, block, BLOCK_BYTES);
            if (zeroFill) {
                zeroFill(handle);
            } else if (!allocated) {
                writeLastBlock(handle, block);
            }
            io.sync(handle);
            io.rename(temporary, SegmentNames.segmentPath(directory, base));
            io.syncDirectory();
            return handle;
        } catch (final IOException | RuntimeException ex) {
            removeTemporary(handle, temporary, ex);
            throw ex;
        }
    }

    /**
     * After a preparation failed: closes the file and deletes the temporary so it holds no space a full
     * file system lacks (one renamed into place is left to recovery); what fails here is suppressed.
     */
    private void removeTemporary(final int handle, final Path temporary, final Exception failure) {
        try {
            session.closeFile(handle);
        } catch (final IOException | RuntimeException ex) {
            failure.addSuppressed(ex);
        }
        try {
            if (Files.exists(temporary)) {
                io.delete(temporary);
            }
        } catch (final IOException | RuntimeException ex) {
            failure.addSuppressed(ex);
        }
    }

    /**
     * Replaces the segment at a base (if any) with one holding a single discard frame, renamed over it
     * from a temporary, directory synced; keeps the old file as {@code evidence} first if given.
     */
    void replaceWithDiscarded(final long base, final Path existing, final RecoveryEvidence evidence)
            throws IOException {
        final Path temporary = directory.resolve(SegmentNames.temporaryName(base));
        try (AlignedBuffer memory = new AlignedBuffer(2 * BLOCK_BYTES)) {
            final ByteBuffer blocks = memory.buffer();
            SegmentHeaders.write(blocks, capacityBytes, base, logId);
            DiscardFrames.write(
                    blocks,
                    SegmentHeaderDescriptor.HEADER_LENGTH,
                    base + SegmentHeaderDescriptor.HEADER_LENGTH,
                    SegmentHeaderDescriptor.HEADER_LENGTH,
                    capacityBytes,
                    logId);
            final int handle = session.openFile(temporary, true);
            io.write(handle, 0, blocks, 2 * BLOCK_BYTES);
            if (capacityBytes > 2 * BLOCK_BYTES) {
                writeLastBlock(handle, blocks);
            }
            io.sync(handle);
            session.closeFile(handle);
        }
        if (existing != null && evidence != null) {
            evidence.keepSegment(existing);
        }
        // One rename replaces the existing file: its name is never missing, not even after a crash
        // between two steps (the segment before it may record that the log went on into it, and a
        // missing successor is a lost segment that no open gets past).
        io.rename(temporary, SegmentNames.segmentPath(directory, base));
        io.syncDirectory();
    }

    /** Writes zeros from the header to the end, in small writes (see {@link SegmentFill#PREPARE_WRITE_BYTES}). */
    private void zeroFill(final int handle) throws IOException {
        try (AlignedBuffer zeroMemory = new AlignedBuffer(SegmentFill.PREPARE_WRITE_BYTES)) {
            final ByteBuffer zeros = zeroMemory.buffer();
            for (long offset = SegmentHeaderDescriptor.HEADER_LENGTH; offset < capacityBytes; ) {
                final int length = (int) Math.min(SegmentFill.PREPARE_WRITE_BYTES, capacityBytes - offset);
                io.write(handle, offset, zeros, length);
                offset += length;
            }
        }
    }

    /** Gives the file its full size; the range nothing wrote before it is a hole (zeros). */
    private void writeLastBlock(final int handle, final ByteBuffer scratch) throws IOException {
        scratch.clear();
        for (int i = 0; i < BLOCK_BYTES; i += Long.BYTES) {
            scratch.putLong(i, 0);
        }
        io.write(handle, capacityBytes - BLOCK_BYTES, scratch, BLOCK_BYTES);
    }
}
