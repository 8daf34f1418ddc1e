package io.walden.testkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Writes a crash state's file leaving its zero pages as holes, which read as zeros: a log's files are
 * mostly zeros (prepared segments, the unwritten end of the active one), and a crash test writes
 * thousands of states.
 *
 * <p><b>Threading:</b> stateless.
 */
final class SparseFiles {
    private static final int PAGE_BYTES = DiskModel.PAGE_BYTES;
    private static final byte[] ZERO_PAGE = new byte[PAGE_BYTES];

    private SparseFiles() {}

    /**
     * Creates a file with a content.
     *
     * @param path the file, which must not exist.
     * @param content its bytes.
     * @throws IOException if it cannot be written.
     */
    static void write(final Path path, final byte[] content) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            int runStart = -1;
            for (int page = 0; page < content.length; page += PAGE_BYTES) {
                final int end = Math.min(content.length, page + PAGE_BYTES);
                final boolean zero = Arrays.equals(content, page, end, ZERO_PAGE, 0, end - page);
                if (!zero && runStart < 0) {
                    runStart = page;
                } else if (zero && runStart >= 0) {
                    writeFully(channel, content, runStart, page);
                    runStart = -1;
                }
            }
            if (runStart >= 0) {
                writeFully(channel, content, runStart, content.length);
            } else if (content.length > 0 && channel.size() < content.length) {
                // The file ends in a hole: its last byte gives it its size.
                writeFully(channel, content, content.length - 1, content.length);
            }
        }
    }

    private static void writeFully(final FileChannel channel, final byte[] content, final int from, final int to)
            throws IOException {
        final ByteBuffer buffer = ByteBuffer.wrap(content, from, to - from);
        while (buffer.hasRemaining()) {
            channel.write(buffer, buffer.position());
        }
    }
}
