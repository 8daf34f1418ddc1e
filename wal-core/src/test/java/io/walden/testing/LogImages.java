package io.walden.testing;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Copies of log directories as a crash would leave them, and reads of what a segment header records.
 *
 * <p>A copy of the files of a log that is still open is what a process crash (kill -9) leaves: every
 * write that completed is in the files (the copy reads them through the page cache), and the session
 * never recorded a clean close. Copy while no append is in progress.
 */
public final class LogImages {
    private LogImages() {}

    /**
     * Copies the segment files of a live log into a new directory: the state a kill -9 leaves.
     *
     * @param live the directory of an open log.
     * @param target the directory to create.
     * @throws IOException if copying fails.
     */
    public static void crashImage(final Path live, final Path target) throws IOException {
        Files.createDirectories(target);
        final List<Path> files;
        try (Stream<Path> entries = Files.list(live)) {
            files = entries.filter(Files::isRegularFile)
                    .filter(path -> !path.getFileName().toString().equals(SegmentNames.LOCK_FILE_NAME))
                    .collect(Collectors.toList());
        }
        for (final Path file : files) {
            try {
                Files.copy(file, target.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            } catch (final NoSuchFileException ex) {
                // A preparation renamed or removed meanwhile: a crash may find either state.
            }
        }
    }

    /**
     * The clean end position a segment's header records.
     *
     * @param segment the segment file.
     * @return where the log ended at a clean close, or -1 if the header records none.
     * @throws IOException if the file cannot be read.
     */
    public static long cleanEndPosition(final Path segment) throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
            while (header.hasRemaining() && channel.read(header, header.position()) >= 0) {
                // Fill.
            }
        }
        return (header.getInt(SegmentHeaderDescriptor.FLAGS_OFFSET) & SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY) != 0
                ? header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET)
                : -1;
    }

    /**
     * The durable position a segment's header records (its durability mark, or its clean end).
     *
     * @param segment the segment file.
     * @return the position, 0 if none.
     * @throws IOException if the file cannot be read.
     */
    public static long headerDurablePosition(final Path segment) throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
            while (header.hasRemaining() && channel.read(header, header.position()) >= 0) {
                // Fill.
            }
        }
        return header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
    }

    /**
     * The segment files of a directory, oldest first.
     *
     * @param directory the log directory.
     * @return their paths.
     * @throws IOException if the directory cannot be listed.
     */
    public static List<Path> segmentFiles(final Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(
                            p -> SegmentNames.parseSegmentName(p.getFileName().toString()) >= 0)
                    .sorted()
                    .collect(Collectors.toList());
        }
    }
}
