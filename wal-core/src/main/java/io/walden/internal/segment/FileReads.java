package io.walden.internal.segment;

import io.walden.format.SegmentHeaderDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Whole reads from files on the cold paths (recovery, inspection): a buffer filled from a position,
 * or a segment's header.
 *
 * <p><b>Threading:</b> stateless; any thread.
 */
public final class FileReads {
    private FileReads() {}

    /** Fills a buffer from a position of a file; false if the file ends first. */
    public static boolean readFully(final FileChannel channel, final ByteBuffer buffer, final long position)
            throws IOException {
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                return false;
            }
        }
        buffer.clear();
        return true;
    }

    public static ByteBuffer readHeader(final Path path) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return readFully(channel, header, 0) ? header : null;
        }
    }
}
