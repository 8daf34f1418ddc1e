package io.walden.bench.harness;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Moves a latency histogram from a scenario JVM to the harness as one line of text: HdrHistogram's
 * compressed encoding in Base64.
 *
 * <p><b>Threading:</b> stateless.
 */
final class Histograms {
    private Histograms() {}

    /**
     * Encodes a histogram.
     *
     * @param histogram the histogram.
     * @return Base64 text without line breaks.
     */
    static String encode(final Histogram histogram) {
        final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        final int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        final byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /**
     * Decodes a histogram.
     *
     * @param text as written by {@link #encode}.
     * @return the histogram.
     * @throws IllegalArgumentException if the text is not an encoded histogram.
     */
    static Histogram decode(final String text) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(text)), 0);
        } catch (final DataFormatException ex) {
            throw new IllegalArgumentException("not an encoded histogram: " + ex.getMessage(), ex);
        }
    }
}
