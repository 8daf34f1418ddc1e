package io.walden.format;

import java.nio.file.Path;

/**
 * Segment file names. A segment is named by the log position of its first byte, as a 20-digit
 * zero-padded decimal, so names sort in log order: the segment at position 67,108,864 is {@code
 * 00000000000067108864.wal}. A segment being prepared carries the suffix {@code .tmp} until it is
 * complete and durable, then it is renamed.
 */
public final class SegmentNames {
    /** Suffix of a segment file. */
    public static final String SEGMENT_SUFFIX = ".wal";
    /** Suffix of a segment that is still being prepared. */
    public static final String TEMPORARY_SUFFIX = ".wal.tmp";
    /**
     * Suffix of a segment file retention freed and keeps for reuse ({@code WalConfig.recycledSegmentsMax}):
     * {@code <20-digit base it had>.wal.free}. Not a segment: recovery never reads it.
     */
    public static final String FREE_SUFFIX = ".wal.free";
    /** The lock file that keeps a second process out of the directory. */
    public static final String LOCK_FILE_NAME = "walden.lock";
    /**
     * The subdirectory where recovery keeps, byte for byte, what it cut or discarded from the log,
     * before it changes the log. Walden never reads or deletes it.
     */
    public static final String EVIDENCE_DIRECTORY_NAME = "recovery-evidence";

    private static final int DIGIT_COUNT = 20;

    private SegmentNames() {}

    /**
     * @param basePosition the log position of the segment's first byte.
     * @return the segment's file name.
     */
    public static String segmentName(final long basePosition) {
        return String.format("%0" + DIGIT_COUNT + "d%s", basePosition, SEGMENT_SUFFIX);
    }

    /**
     * @param basePosition the log position of the segment's first byte.
     * @return the file name of the segment under preparation.
     */
    public static String temporaryName(final long basePosition) {
        return String.format("%0" + DIGIT_COUNT + "d%s", basePosition, TEMPORARY_SUFFIX);
    }

    /**
     * @param directory the log directory.
     * @param basePosition the log position of the segment's first byte.
     * @return the segment's path.
     */
    public static Path segmentPath(final Path directory, final long basePosition) {
        return directory.resolve(segmentName(basePosition));
    }

    /**
     * @param basePosition the base position the segment had.
     * @return the name the freed file keeps while it waits for reuse, e.g. {@code 00000000000067108864.wal.free}.
     */
    public static String freeName(final long basePosition) {
        return String.format("%0" + DIGIT_COUNT + "d%s", basePosition, FREE_SUFFIX);
    }

    /**
     * @param fileName a file name without directory.
     * @return the base position the freed segment file had, or -1 if the name is no {@link #freeName}.
     */
    public static long parseFreeName(final String fileName) {
        if (fileName.length() != DIGIT_COUNT + FREE_SUFFIX.length() || !fileName.endsWith(FREE_SUFFIX)) {
            return -1;
        }
        return parseSegmentName(fileName.substring(0, DIGIT_COUNT) + SEGMENT_SUFFIX);
    }

    /**
     * @param fileName a file name without directory.
     * @return the segment's base position, or -1 if the name is no {@link #segmentName}.
     */
    public static long parseSegmentName(final String fileName) {
        if (fileName.length() != DIGIT_COUNT + SEGMENT_SUFFIX.length() || !fileName.endsWith(SEGMENT_SUFFIX)) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < DIGIT_COUNT; i++) {
            final char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1;
            }
        }
        return value;
    }
}
