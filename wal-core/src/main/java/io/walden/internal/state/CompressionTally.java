package io.walden.internal.state;

/**
 * What compression did, for the stats: records stored encoded, their bytes as appended and as stored.
 * Summed on demand from the encoders' own counters; racy, as every stat.
 *
 * <p><b>Threading:</b> any thread.
 */
public interface CompressionTally {
    /** None: a log that does not compress. */
    CompressionTally NONE = new CompressionTally() {
        @Override
        public long recordsCompressed() {
            return 0;
        }

        @Override
        public long compressedInputBytes() {
            return 0;
        }

        @Override
        public long compressedStoredBytes() {
            return 0;
        }
    };

    /** Records stored encoded. */
    long recordsCompressed();

    /** Their bytes as appended. */
    long compressedInputBytes();

    /** Their bytes as stored. */
    long compressedStoredBytes();
}
