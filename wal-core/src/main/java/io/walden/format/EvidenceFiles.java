package io.walden.format;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Names and creates the files of a log's evidence directory ({@link SegmentNames#EVIDENCE_DIRECTORY_NAME}),
 * where recovery, and the {@code walden} tool's offline cuts, keep byte for byte what they give up:
 *
 * <pre>
 *   recovery-evidence/&lt;stamp&gt;-&lt;segment&gt;-&lt;from position&gt;-&lt;to position&gt;.cut   a range of a segment
 *   recovery-evidence/&lt;stamp&gt;-&lt;segment file name&gt;                          a whole segment
 *   stamp: the UTC time the keeping began, yyyyMMdd'T'HHmmss.SSS'Z'; a name taken already gets
 *          -2, -3, ... after the stamp
 * </pre>
 *
 * Walden never reads or deletes these files.
 *
 * <p><b>Threading:</b> stateless; the caller makes sure no two threads create files with one stamp.
 */
public final class EvidenceFiles {
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    private EvidenceFiles() {}

    /**
     * @param time when the keeping began.
     * @return the stamp that names the files of one keeping.
     */
    public static String stamp(final Instant time) {
        return STAMP.format(time);
    }

    /**
     * @param segment the segment file.
     * @param fromPosition the range's first position.
     * @param toPosition its end.
     * @return the name, without the stamp, of the copy of the range.
     */
    public static String rangeName(final Path segment, final long fromPosition, final long toPosition) {
        return String.format(
                "%s-%020d-%020d.cut",
                segment.getFileName().toString().replace(SegmentNames.SEGMENT_SUFFIX, ""), fromPosition, toPosition);
    }

    /**
     * A new file's path in the evidence directory, which is created (and its creation synced) if
     * missing. The file itself is not created.
     *
     * @param logDirectory the log's directory.
     * @param stamp the keeping's {@link #stamp}.
     * @param name the file's name without the stamp.
     * @return a path no file has yet.
     * @throws IOException if the directory cannot be created or synced.
     */
    public static Path newFile(final Path logDirectory, final String stamp, final String name) throws IOException {
        final Path evidenceDirectory = logDirectory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME);
        if (!Files.isDirectory(evidenceDirectory)) {
            try {
                Files.createDirectory(evidenceDirectory);
            } catch (final FileAlreadyExistsException ex) {
                // Created meanwhile: fine.
            }
            syncDirectory(logDirectory);
        }
        Path file = evidenceDirectory.resolve(stamp + "-" + name);
        for (int i = 2; Files.exists(file); i++) {
            file = evidenceDirectory.resolve(stamp + "-" + i + "-" + name);
        }
        return file;
    }

    /**
     * Makes a directory's entries durable.
     *
     * @param directory the directory.
     * @throws IOException if it cannot be opened or synced.
     */
    public static void syncDirectory(final Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
