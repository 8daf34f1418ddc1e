package io.walden.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;

/**
 * Builds output lines in a large character buffer and hands it to a {@link Writer} in big chunks: a
 * dump of a million frames formats numbers straight into the buffer, with no string per field.
 *
 * <p><b>Threading:</b> not thread-safe; one command writes through it.
 */
final class LineWriter {
    private static final int BUFFER_CHARS = 64 * 1024;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final Writer out;
    private final char[] buffer = new char[BUFFER_CHARS];
    private final char[] digits = new char[20];
    private int used;
    private boolean failed;

    /**
     * Creates a line writer.
     *
     * @param out where full buffers go; flushed by {@link #flush()}.
     */
    LineWriter(final Writer out) {
        this.out = out;
    }

    /**
     * Appends text.
     *
     * @param text the characters.
     * @return this.
     */
    LineWriter text(final String text) {
        final int length = text.length();
        if (length > BUFFER_CHARS - used) {
            drain();
            if (length > BUFFER_CHARS) {
                write(text.toCharArray(), length);
                return this;
            }
        }
        text.getChars(0, length, buffer, used);
        used += length;
        return this;
    }

    /**
     * Appends one character.
     *
     * @param c the character.
     * @return this.
     */
    LineWriter character(final char c) {
        if (used == BUFFER_CHARS) {
            drain();
        }
        buffer[used++] = c;
        return this;
    }

    /**
     * Appends a number in decimal.
     *
     * @param value the number.
     * @return this.
     */
    LineWriter number(final long value) {
        if (value < 0) {
            return text(Long.toString(value));
        }
        int count = 0;
        long rest = value;
        do {
            digits[count++] = (char) ('0' + (int) (rest % 10));
            rest /= 10;
        } while (rest != 0);
        if (count > BUFFER_CHARS - used) {
            drain();
        }
        while (count > 0) {
            buffer[used++] = digits[--count];
        }
        return this;
    }

    /**
     * Appends the low bits of a number as fixed-width lowercase hexadecimal.
     *
     * @param value the number.
     * @param width how many hex digits, from the lowest.
     * @return this.
     */
    LineWriter hex(final long value, final int width) {
        if (width > BUFFER_CHARS - used) {
            drain();
        }
        for (int i = width - 1; i >= 0; i--) {
            buffer[used++] = HEX[(int) (value >>> (i * 4)) & 0xF];
        }
        return this;
    }

    /**
     * Ends the line.
     *
     * @return this.
     */
    LineWriter newline() {
        return character('\n');
    }

    /**
     * Whether the output is gone (a closed pipe, as {@code walden dump DIR | head} leaves): the command
     * may stop early, nothing more can be shown.
     *
     * @return true once a write failed.
     */
    boolean failed() {
        return failed;
    }

    /** Hands everything buffered to the writer and flushes it. */
    void flush() {
        drain();
        try {
            out.flush();
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void drain() {
        if (used > 0) {
            write(buffer, used);
            used = 0;
        }
    }

    private void write(final char[] chars, final int length) {
        try {
            out.write(chars, 0, length);
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        // A PrintWriter (what picocli hands out) swallows errors: ask it, once per full buffer.
        if (out instanceof PrintWriter && ((PrintWriter) out).checkError()) {
            failed = true;
        }
    }
}
