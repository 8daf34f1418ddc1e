package io.walden.tools;

import io.walden.format.EvidenceFiles;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a copy of a range of log positions in the log's {@code recovery-evidence/} directory, byte for
 * byte, the way recovery keeps what it cuts (FORMAT.md, recovery rule 7; DURABILITY.md): one file per
 * segment, named {@code <time>-<segment>-<from position>-<to position>.cut}, each range ending at its
 * segment's last non-zero byte, segment headers left out. Each file and the directory entries that name
 * it are synced before {@link #keep} returns, so the log may be changed afterwards and a crash loses
 * neither.
 *
 * <p>{@code truncate-after} uses it because {@code Wal.truncateAfter} keeps nothing (a Raft log drops
 * uncommitted entries that way, and wants no copy); an operator who cuts a log by hand does.
 *
 * <p><b>Threading:</b> one thread; the caller holds the log's lock, so the range does not change.
 */
final class EvidenceCopy {
    private static final int CHUNK_BYTES = 1024 * 1024;

    private final Path logDirectory;
    private final String stamp = EvidenceFiles.stamp(Instant.now());
    private final ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK_BYTES);
    private final List<Path> files = new ArrayList<>();

    /**
     * Keeps evidence of a log.
     *
     * @param logDirectory the log directory.
     */
    EvidenceCopy(final Path logDirectory) {
        this.logDirectory = logDirectory;
    }

    /**
     * Copies the bytes of the positions {@code [fromPosition, toPosition)}, segment by segment.
     *
     * @param fromPosition the first position.
     * @param toPosition the end.
     * @param capacityBytes the log's segment capacity.
     * @return the files written, oldest first; empty if the range holds only zeros.
     * @throws IOException if a segment cannot be read or the copy not written.
     */
    List<Path> keep(final long fromPosition, final long toPosition, final int capacityBytes) throws IOException {
        for (long base = fromPosition - Math.floorMod(fromPosition, capacityBytes);
                base < toPosition;
                base += capacityBytes) {
            final long fromOffset = Math.max(fromPosition - base, SegmentHeaderDescriptor.HEADER_LENGTH);
            final long toOffset = Math.min(toPosition - base, capacityBytes);
            if (fromOffset < toOffset) {
                keepRange(SegmentNames.segmentPath(logDirectory, base), base, fromOffset, toOffset);
            }
        }
        return List.copyOf(files);
    }

    private void keepRange(final Path segment, final long base, final long fromOffset, final long toOffset)
            throws IOException {
        try (FileChannel in = FileChannel.open(segment, StandardOpenOption.READ)) {
            final long end = Math.min(nonZeroEnd(in, fromOffset, Math.min(toOffset, in.size())), toOffset);
            if (end <= fromOffset) {
                return;
            }
            final Path file = EvidenceFiles.newFile(
                    logDirectory, stamp, EvidenceFiles.rangeName(segment, base + fromOffset, base + end));
            try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                long at = fromOffset;
                while (at < end) {
                    chunk.clear().limit((int) Math.min(CHUNK_BYTES, end - at));
                    final int read = in.read(chunk, at);
                    if (read < 0) {
                        throw new IOException(segment + " ended at offset " + at + " while it was copied");
                    }
                    chunk.flip();
                    while (chunk.hasRemaining()) {
                        out.write(chunk);
                    }
                    at += read;
                }
                out.force(true);
            }
            EvidenceFiles.syncDirectory(file.getParent());
            files.add(file);
        } catch (final NoSuchFileException ex) {
            // No segment at this base: nothing to keep there.
        }
    }

    /** @return the offset after the last non-zero byte in {@code [from, to)}, or {@code from}. */
    private long nonZeroEnd(final FileChannel in, final long from, final long to) throws IOException {
        long end = from;
        long at = from;
        while (at < to) {
            chunk.clear().limit((int) Math.min(CHUNK_BYTES, to - at));
            final int read = in.read(chunk, at);
            if (read <= 0) {
                break;
            }
            for (int i = 0; i < read; i++) {
                if (chunk.get(i) != 0) {
                    end = at + i + 1;
                }
            }
            at += read;
        }
        return end;
    }
}
