package io.walden.tools;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import picocli.CommandLine;

/**
 * How {@code dump} and {@code tail} show a record's payload: not at all, as hexadecimal, or as UTF-8
 * text with control characters, quotes and backslashes escaped (so that one record stays one line).
 * Long payloads are cut at a limit ({@link PayloadOptions.Printer} marks it).
 */
enum PayloadFormat {
    /** No payload: the fastest. */
    NONE,
    /** Lowercase hexadecimal, two digits per byte. */
    HEX,
    /** UTF-8 text in double quotes; invalid bytes show as U+FFFD. */
    UTF8;

    /**
     * Appends a payload's shown bytes as a value: hex digits, or a quoted, escaped string for {@link
     * #UTF8} (which is also a JSON string literal); nothing for {@link #NONE}.
     *
     * @param out the line.
     * @param bytes the first bytes of the payload.
     * @param shown how many of {@code bytes} to show.
     * @param decoder a UTF-8 decoder (for {@link #UTF8}).
     * @param chars scratch space of at least {@code shown} characters (for {@link #UTF8}).
     */
    void appendValue(
            final LineWriter out,
            final byte[] bytes,
            final int shown,
            final CharsetDecoder decoder,
            final CharBuffer chars) {
        if (this == HEX) {
            for (int i = 0; i < shown; i++) {
                out.hex(bytes[i], 2);
            }
        } else if (this == UTF8) {
            decoder.reset();
            chars.clear();
            decoder.decode(ByteBuffer.wrap(bytes, 0, shown), chars, true);
            decoder.flush(chars);
            chars.flip();
            out.character('"');
            while (chars.hasRemaining()) {
                Json.escape(out, chars.get());
            }
            out.character('"');
        }
    }

    /** @return a UTF-8 decoder that replaces invalid bytes. */
    static CharsetDecoder newDecoder() {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
    }

    /** Converts {@code none}, {@code hex}, {@code utf8} (any case) for picocli. */
    static final class Converter implements CommandLine.ITypeConverter<PayloadFormat> {
        @Override
        public PayloadFormat convert(final String value) {
            switch (value.toLowerCase(Locale.ROOT)) {
                case "none":
                    return NONE;
                case "hex":
                    return HEX;
                case "utf8":
                case "utf-8":
                    return UTF8;
                default:
                    throw new CommandLine.TypeConversionException(
                            "'" + value + "' is not a payload format: use none, hex or utf8");
            }
        }
    }
}
