package io.walden.codec;

import java.util.Objects;

/**
 * How a log compresses appended records ({@code WalConfig.Builder.compression}): in the appending
 * thread, from {@code thresholdBytes} on, kept only where the frame gets smaller; at most {@code
 * encoders} records at once (an appender finding all busy waits), each encoder's buffer growing up to
 * the codec's bound for {@code maxRecordBytes}. See docs/design/codecs.md.
 *
 * <p><b>Threading:</b> immutable.
 *
 * @param codec the codec.
 * @param thresholdBytes records shorter than this are stored as given.
 * @param encoders how many records may be compressed at once.
 */
public record Compression(RecordCodec codec, int thresholdBytes, int encoders) {
    /** The default threshold (docs/design/codecs.md). */
    public static final int THRESHOLD_BYTES_DEFAULT = 256;

    /** The smallest threshold: a shorter record never shrinks by a whole frame alignment unit. */
    public static final int THRESHOLD_BYTES_MIN = 16;

    /** Checks the settings: a codec id from 1 to 15, a threshold from 16, at least one encoder. */
    public Compression {
        Objects.requireNonNull(codec, "codec");
        if (codec.id() < 1 || codec.id() > RecordCodec.ID_MAX) {
            throw new IllegalArgumentException("codec " + codec.name() + " has id " + codec.id()
                    + "; a codec id is from 1 to " + RecordCodec.ID_MAX);
        }
        if (thresholdBytes < THRESHOLD_BYTES_MIN) {
            throw new IllegalArgumentException(
                    "compression thresholdBytes=" + thresholdBytes + " is below " + THRESHOLD_BYTES_MIN);
        }
        if (encoders < 1) {
            throw new IllegalArgumentException("compression encoders=" + encoders + "; at least 1 is needed");
        }
    }

    /**
     * Compression with a codec, the default threshold, and twice as many encoders as processors (at
     * least 4).
     *
     * @param codec the codec.
     * @return the settings.
     */
    public static Compression with(final RecordCodec codec) {
        return new Compression(
                codec,
                THRESHOLD_BYTES_DEFAULT,
                Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
    }

    /**
     * These settings with another threshold.
     *
     * @param thresholdBytes records shorter than this are stored as given.
     * @return the new settings.
     */
    public Compression thresholdBytes(final int thresholdBytes) {
        return new Compression(codec, thresholdBytes, encoders);
    }

    /**
     * These settings with another number of encoders.
     *
     * @param encoders how many records may be compressed at once.
     * @return the new settings.
     */
    public Compression encoders(final int encoders) {
        return new Compression(codec, thresholdBytes, encoders);
    }

    @Override
    public String toString() {
        return codec.name() + " from " + thresholdBytes + " bytes, " + encoders + " encoders";
    }
}
