package io.walden.internal.segment;

import io.walden.internal.state.AlignedBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The one window through which recovery's scanner, the read-only view's tracker and the readers read a
 * segment file: a range of the file held in page-aligned direct memory, filled by large positional
 * reads, over which {@link io.walden.format.FrameDecoder} decodes frames in place.
 *
 * <pre>
 *   file:    0        startOffset              filledEnd           endOffset (bound)
 *            |------------|========================|-------------------|
 *   buffer:               index 0 ............ filled - 1
 * </pre>
 *
 * <p>A window is bound to one open file at a time ({@link #bind}), up to an end offset (the file's size
 * or the segment's capacity, whichever the caller trusts). Bytes at or past a recycled segment's write
 * limit ({@code staleFromOffset}) read as zeros. The memory grows, rarely, for a frame larger than the
 * window; growing drops what it held.
 *
 * <p><b>Threading:</b> not thread-safe; owned by the thread that scans or reads.
 */
public final class SegmentWindow implements AutoCloseable {
    private AlignedBuffer memory;
    private ByteBuffer buffer;
    private final UnsafeBuffer view;
    private FileChannel channel;
    private long endOffset;
    private long staleFromOffset = Long.MAX_VALUE;
    private long startOffset;
    private int filled;

    public SegmentWindow(final int capacityBytes) {
        this.memory = new AlignedBuffer(capacityBytes);
        this.buffer = memory.buffer();
        this.view = new UnsafeBuffer(buffer);
    }

    /**
     * Binds the window to a file, readable up to {@code endOffset}, with the bytes from {@code
     * staleFromOffset} on read as zeros ({@link Long#MAX_VALUE}: none). Drops what the window held.
     */
    public void bind(final FileChannel file, final long endOffset, final long staleFromOffset) {
        this.channel = file;
        this.endOffset = endOffset;
        this.staleFromOffset = staleFromOffset;
        this.startOffset = 0;
        this.filled = 0;
    }

    /** Forgets the bound file (the caller closes it). */
    public void unbind() {
        channel = null;
        filled = 0;
    }

    /**
     * Makes {@code [offset, offset + lengthBytes)} readable in the window, reading (and growing) as
     * needed; false if the range runs past the bound end or the file holds fewer bytes.
     */
    public boolean ensure(final long offset, final int lengthBytes) throws IOException {
        if (offset + lengthBytes > endOffset) {
            return false;
        }
        if (offset >= startOffset && offset + lengthBytes <= startOffset + filled) {
            return true;
        }
        if (lengthBytes > buffer.capacity()) {
            grow(lengthBytes);
        }
        fill(offset, endOffset);
        return offset + lengthBytes <= startOffset + filled;
    }

    /**
     * Reads from {@code offset} as much as the window holds, up to {@code limitOffset} and the bound
     * end; returns how many bytes it now holds from {@code offset} (fewer where the file ends).
     */
    public int fill(final long offset, final long limitOffset) throws IOException {
        buffer.clear().limit((int) Math.max(0, Math.min(buffer.capacity(), Math.min(limitOffset, endOffset) - offset)));
        long filePosition = offset;
        while (buffer.hasRemaining()) {
            final int read = channel.read(buffer, filePosition);
            if (read < 0) {
                break;
            }
            filePosition += read;
        }
        startOffset = offset;
        filled = buffer.position();
        buffer.clear();
        if (staleFromOffset < offset + filled) {
            zeroFrom(index(Math.max(staleFromOffset, offset)));
        }
        return filled;
    }

    public void grow(final int lengthBytes) {
        memory.close();
        memory = new AlignedBuffer(Integer.highestOneBit(lengthBytes) * 2);
        buffer = memory.buffer();
        view.wrap(buffer);
        filled = 0;
    }

    /** The window's memory, little-endian; index 0 is the file's {@link #startOffset()}. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** The same memory as {@link #buffer()}, as an Agrona buffer (rewrapped when the window grows). */
    public UnsafeBuffer view() {
        return view;
    }

    public long startOffset() {
        return startOffset;
    }

    public long filledEnd() {
        return startOffset + filled;
    }

    public int capacityBytes() {
        return buffer.capacity();
    }

    /** Where a file offset the window holds is in {@link #buffer()}. */
    public int index(final long offset) {
        return (int) (offset - startOffset);
    }

    public int available(final long offset) {
        return (int) (startOffset + filled - offset);
    }

    private void zeroFrom(final int fromIndex) {
        int i = fromIndex;
        for (; i < filled && (i & (Long.BYTES - 1)) != 0; i++) {
            buffer.put(i, (byte) 0);
        }
        for (; i + Long.BYTES <= filled; i += Long.BYTES) {
            buffer.putLong(i, 0);
        }
        for (; i < filled; i++) {
            buffer.put(i, (byte) 0);
        }
    }

    @Override
    public void close() {
        memory.close();
    }
}
