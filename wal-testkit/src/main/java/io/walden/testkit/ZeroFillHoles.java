package io.walden.testkit;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * The zero-fill of a segment under preparation, left as holes in the real file: a log zero-fills
 * every segment it prepares, block by block, and a hole past the end of a file reads as zeros, so
 * those writes need not touch the real file. Only the size must follow, before anyone can look at
 * it: when the file is synced, renamed or closed ({@link #settle}). The history records every zero
 * write all the same: only the page-cache view is spared the bytes.
 *
 * <p><b>Threading:</b> owned by the session's owning thread; real-file changes are made under the
 * disk's lock, and not once the power failed.
 */
final class ZeroFillHoles {
    private static final ByteBuffer ONE_ZERO = ByteBuffer.allocate(1).asReadOnlyBuffer();

    private final SimulatedDisk disk;
    // Per temporary file (inode): where its zero-fill reached past the real file's end.
    private final Map<Integer, Long> ends = new HashMap<>();

    ZeroFillHoles(final SimulatedDisk disk) {
        this.disk = disk;
    }

    /**
     * Whether a write may be left as a hole: zeros, to a temporary file, at or past its real end.
     * Notes where it ends if so.
     *
     * @param name the file's name.
     * @param inode the file's identity.
     * @param channel the real file.
     * @param fileOffset where the write goes.
     * @param bytes the write's bytes ({@link WriteBytes#copy}).
     * @return true if the real file need not be written.
     * @throws IOException if the real file's size cannot be read.
     */
    boolean skip(
            final String name, final int inode, final FileChannel channel, final long fileOffset, final byte[] bytes)
            throws IOException {
        if (!WriteBytes.isZeros(bytes)
                || !name.endsWith(SegmentNames.TEMPORARY_SUFFIX)
                || fileOffset < channel.size()) {
            return false;
        }
        ends.merge(inode, fileOffset + bytes.length, Math::max);
        return true;
    }

    /** @return whether some file still lacks the size of its zero-fill. */
    boolean pending() {
        return !ends.isEmpty();
    }

    /**
     * Gives a file the size its zero-fill reached.
     *
     * @param inode the file's identity.
     * @param channel the real file.
     * @throws IOException if it cannot be extended.
     */
    void settle(final int inode, final FileChannel channel) throws IOException {
        final Long end = ends.remove(inode);
        if (end == null) {
            return;
        }
        synchronized (disk) {
            if (!disk.frozen() && channel.size() < end) {
                channel.write(ONE_ZERO.duplicate(), end - 1);
            }
        }
    }
}
