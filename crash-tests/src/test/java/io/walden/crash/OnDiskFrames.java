package io.walden.crash;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.testing.TestRecords;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a crashed log directory holds before anything reopens it: which tagged records ({@link
 * TestRecords#tagged}) lie whole in its segment files. The crash suites use it to tell a batch that
 * the crash left partly written (some of its frames whole on disk, some not), which recovery must give
 * up whole, from one that never reached the disk: it makes the {@code batchesTorn} count of {@link
 * CrashTally#BATCHES_TORN}, the evidence that the suites reach the case all-or-none is about.
 *
 * <p>It reads the bytes as they are and does not validate frames as recovery does (no frame
 * checksum: the log identity is not known here): a frame counts as whole when its length and type are
 * those of a data frame of the record and the record's own tag checksum matches its payload. That is
 * enough to tell a record on disk from zeros, an older page or a torn write.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class OnDiskFrames {
    private OnDiskFrames() {}

    /**
     * Reads a segment file.
     *
     * @param directory the log directory.
     * @param basePosition the segment's base position.
     * @return its bytes, or null if there is no such segment.
     * @throws IOException if it cannot be read.
     */
    public static byte[] readSegment(final Path directory, final long basePosition) throws IOException {
        try {
            return Files.readAllBytes(SegmentNames.segmentPath(directory, basePosition));
        } catch (final NoSuchFileException ex) {
            return null;
        }
    }

    /**
     * Whether a segment's bytes hold a tagged record whole in the frame at an offset.
     *
     * @param segment the segment file's bytes, or null for a missing file.
     * @param offset the frame's offset in the segment.
     * @param writer the record's writer tag.
     * @param sequence the record's sequence number.
     * @param payloadLength the record's length.
     * @return true if the frame is there, whole.
     */
    public static boolean holds(
            final byte[] segment, final long offset, final int writer, final int sequence, final int payloadLength) {
        if (segment == null
                || offset < SegmentHeaderDescriptor.HEADER_LENGTH
                || offset + FrameDescriptor.frameLength(payloadLength) > segment.length) {
            return false;
        }
        final ByteBuffer bytes = ByteBuffer.wrap(segment).order(ByteOrder.LITTLE_ENDIAN);
        final int frame = (int) offset;
        if (bytes.getInt(frame + FrameDescriptor.LENGTH_OFFSET) != FrameDescriptor.frameLength(payloadLength)
                || bytes.getShort(frame + FrameDescriptor.TYPE_OFFSET) != FrameDescriptor.TYPE_DATA) {
            return false;
        }
        final TestRecords.Tag tag = tagAt(bytes, frame + FrameDescriptor.HEADER_LENGTH, payloadLength);
        return tag != null && tag.writer() == writer && tag.sequence() == sequence;
    }

    /**
     * Every tagged record whole on disk in a directory's segment files, found by walking each segment's
     * frames from its first frame; after zeros or bytes that are no frame the walk looks on in 8-byte
     * steps (the frame alignment), so that a hole left by a torn write does not hide what follows.
     *
     * @param directory the log directory; a missing directory holds nothing.
     * @return the position of each record found, by tag.
     * @throws IOException if a segment cannot be read.
     */
    public static Map<TestRecords.Tag, Long> scan(final Path directory) throws IOException {
        final Map<TestRecords.Tag, Long> found = new HashMap<>();
        if (!Files.isDirectory(directory)) {
            return found;
        }
        final Map<Long, Path> segments = new HashMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            files.forEach(file -> {
                final long base =
                        SegmentNames.parseSegmentName(file.getFileName().toString());
                if (base >= 0) {
                    segments.put(base, file);
                }
            });
        }
        for (final Map.Entry<Long, Path> segment : segments.entrySet()) {
            final byte[] content;
            try {
                content = Files.readAllBytes(segment.getValue());
            } catch (final NoSuchFileException ex) {
                continue;
            }
            scanSegment(segment.getKey(), content, found);
        }
        return found;
    }

    private static long newestSegment(final Path directory) throws IOException {
        long newest = -1;
        try (Stream<Path> files = Files.list(directory)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                newest = Math.max(
                        newest, SegmentNames.parseSegmentName(file.getFileName().toString()));
            }
        }
        return newest;
    }

    /**
     * Watches the newest segment of a directory that a live process appends to, for the moments its
     * written frames end inside a batch: the last whole frame before zeros or a torn frame says that
     * the batch goes on ({@link FrameDescriptor#FLAG_BATCH_CONTINUES}), so that the disk holds the
     * first frames of a batch and not its last, and a process crash then leaves a batch recovery must
     * give up whole. It looks cheaply enough to look many thousand times a second: it reads only past
     * the frames it has seen whole, which a process that appends never changes.
     *
     * <p><b>Threading:</b> used by one thread.
     */
    public static final class Watcher implements AutoCloseable {
        private static final int READ_BYTES = 64 * 1024;
        private static final int LOOKS_PER_LISTING = 256;

        private final Path directory;
        private final ByteBuffer chunk = ByteBuffer.allocateDirect(READ_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        private final byte[] copy = new byte[READ_BYTES];
        private FileChannel channel;
        private long segmentBase = -1;
        private long nextFrame;
        private boolean open;
        private boolean segmentDone;
        private int looks;

        /**
         * Watches a directory.
         *
         * @param directory the log directory.
         */
        public Watcher(final Path directory) {
            this.directory = directory;
        }

        /**
         * Looks once.
         *
         * @return true if the newest segment's written frames end inside a batch now.
         * @throws IOException if the directory or a segment cannot be read.
         */
        public boolean endsInsideABatch() throws IOException {
            if (channel == null || segmentDone || looks++ % LOOKS_PER_LISTING == 0) {
                final long newest = newestSegment(directory);
                if (newest > segmentBase) {
                    close();
                    try {
                        channel =
                                FileChannel.open(SegmentNames.segmentPath(directory, newest), StandardOpenOption.READ);
                    } catch (final NoSuchFileException ex) {
                        return false;
                    }
                    segmentBase = newest;
                    nextFrame = SegmentHeaderDescriptor.HEADER_LENGTH;
                    open = false;
                    segmentDone = false;
                }
            }
            if (channel == null || segmentDone) {
                return false;
            }
            chunk.clear();
            final int read = channel.read(chunk, nextFrame);
            if (read <= 0) {
                return false;
            }
            chunk.flip();
            chunk.get(0, copy, 0, read);
            final ByteBuffer bytes = ByteBuffer.wrap(copy, 0, read).order(ByteOrder.LITTLE_ENDIAN);
            int offset = 0;
            while (offset + FrameDescriptor.HEADER_LENGTH <= read) {
                final int frameLength = bytes.getInt(offset + FrameDescriptor.LENGTH_OFFSET);
                if (frameLength < FrameDescriptor.SHORT_PADDING_LENGTH || frameLength > read - offset) {
                    // Nothing written here yet, a frame not written whole, or one longer than the chunk.
                    break;
                }
                if (frameLength >= FrameDescriptor.HEADER_LENGTH
                        && bytes.getShort(offset + FrameDescriptor.TYPE_OFFSET) == FrameDescriptor.TYPE_DATA) {
                    if (tagAt(
                                    bytes,
                                    offset + FrameDescriptor.HEADER_LENGTH,
                                    frameLength - FrameDescriptor.HEADER_LENGTH)
                            == null) {
                        break;
                    }
                    open = FrameDescriptor.batchContinues(bytes.getShort(offset + FrameDescriptor.FLAGS_OFFSET));
                } else {
                    open = false;
                    if (nextFrame + offset + frameLength >= channel.size()) {
                        // Padding to the end: the segment is complete, the log goes on in the next.
                        segmentDone = true;
                    }
                }
                offset += FrameDescriptor.alignedLength(frameLength);
            }
            nextFrame += offset;
            return open && !segmentDone;
        }

        @Override
        public void close() throws IOException {
            if (channel != null) {
                channel.close();
                channel = null;
            }
        }
    }

    private static void scanSegment(final long base, final byte[] content, final Map<TestRecords.Tag, Long> found) {
        final ByteBuffer bytes = ByteBuffer.wrap(content).order(ByteOrder.LITTLE_ENDIAN);
        int offset = SegmentHeaderDescriptor.HEADER_LENGTH;
        while (offset + FrameDescriptor.SHORT_PADDING_LENGTH <= content.length) {
            final int frameLength = bytes.getInt(offset + FrameDescriptor.LENGTH_OFFSET);
            if (frameLength < FrameDescriptor.SHORT_PADDING_LENGTH || frameLength > content.length - offset) {
                offset += FrameDescriptor.FRAME_ALIGNMENT;
                continue;
            }
            if (frameLength >= FrameDescriptor.HEADER_LENGTH + TestRecords.TAG_LENGTH
                    && bytes.getShort(offset + FrameDescriptor.TYPE_OFFSET) == FrameDescriptor.TYPE_DATA) {
                final TestRecords.Tag tag = tagAt(
                        bytes, offset + FrameDescriptor.HEADER_LENGTH, frameLength - FrameDescriptor.HEADER_LENGTH);
                if (tag == null) {
                    // Not a whole frame (torn, or bytes that only look like a header): look on.
                    offset += FrameDescriptor.FRAME_ALIGNMENT;
                    continue;
                }
                found.put(tag, base + offset);
            }
            offset += FrameDescriptor.alignedLength(frameLength);
        }
    }

    /** The tag of a whole tagged payload at an index, or null if the bytes there are not one. */
    private static TestRecords.Tag tagAt(final ByteBuffer bytes, final int payload, final int payloadLength) {
        if (payloadLength < TestRecords.TAG_LENGTH || payload + payloadLength > bytes.capacity()) {
            return null;
        }
        if (bytes.getInt(payload + 8) != payloadLength) {
            return null;
        }
        final CRC32C crc = new CRC32C();
        crc.update(bytes.array(), payload, 12);
        crc.update(bytes.array(), payload + TestRecords.TAG_LENGTH, payloadLength - TestRecords.TAG_LENGTH);
        if ((int) crc.getValue() != bytes.getInt(payload + 12)) {
            return null;
        }
        return new TestRecords.Tag(bytes.getInt(payload), bytes.getInt(payload + 4));
    }
}
