package io.walden.tools;

import io.walden.tools.spi.PayloadDecoder;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.util.Locale;
import org.agrona.DirectBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The payload options {@code dump} and {@code tail} share ({@code --payload}, {@code
 * --max-payload-bytes}, {@code --decoder}), as a picocli mixin, and the printer they make.
 *
 * <p><b>Threading:</b> filled by picocli, then used by the command's thread.
 */
final class PayloadOptions {
    /** The largest {@code --max-payload-bytes}: a line stays printable. */
    static final int MAX_PAYLOAD_BYTES_LIMIT = 1024 * 1024;

    @Option(
            names = "--payload",
            paramLabel = "FORMAT",
            converter = PayloadFormat.Converter.class,
            description = "How to show data payloads: none (default, fastest), hex or utf8.")
    private PayloadFormat format = PayloadFormat.NONE;

    @Option(
            names = "--max-payload-bytes",
            paramLabel = "N",
            description = "Show at most N bytes of each payload, then '...' (default: ${DEFAULT-VALUE}).")
    private int maxPayloadBytes = 64;

    @Option(
            names = "--decoder",
            paramLabel = "CLASS",
            description = "Show each data payload as this class renders it: a class on the class path that"
                    + " implements io.walden.tools.spi.PayloadDecoder, with a public no-argument constructor"
                    + " (run the tool with java -cp walden.jar:<your jar> io.walden.tools.Walden ...).")
    private String decoderClass;

    private PayloadDecoder decoder;

    /** Creates the options; picocli fills them. */
    PayloadOptions() {
        // Options only.
    }

    /**
     * Checks the options and loads the decoder, if one is named.
     *
     * @param spec the command, for the usage error.
     * @throws CommandLine.ParameterException if {@code --max-payload-bytes} is out of range, or both
     *     {@code --payload} and {@code --decoder} are given.
     * @throws ToolException ({@link Walden#EXIT_USAGE}) if the decoder class cannot be used.
     */
    void validate(final CommandSpec spec) {
        if (maxPayloadBytes < 0 || maxPayloadBytes > MAX_PAYLOAD_BYTES_LIMIT) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--max-payload-bytes must be between 0 and " + MAX_PAYLOAD_BYTES_LIMIT + ", not "
                            + maxPayloadBytes);
        }
        if (decoderClass != null && format != PayloadFormat.NONE) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--payload " + format.name().toLowerCase(Locale.ROOT) + " and --decoder both say how"
                            + " to show payloads: give one");
        }
        if (decoderClass != null) {
            decoder = PayloadDecoders.load(decoderClass);
        }
    }

    /** @return a printer for these options; after {@link #validate}. */
    Printer printer() {
        return new Printer(format, maxPayloadBytes, decoder, decoderClass);
    }

    /**
     * Shows payloads in lines, text or JSON: load a record's payload with {@code load}, then append
     * it. Raw formats copy only the shown bytes into scratch space, allocating nothing per record; a
     * decoder gets the whole payload in a buffer made for the call.
     *
     * <p><b>Threading:</b> one thread.
     */
    static final class Printer {
        private final PayloadFormat format;
        private final int maxPayloadBytes;
        private final PayloadDecoder decoder;
        private final String decoderClass;
        private final byte[] bytes;
        private final CharsetDecoder utf8 = PayloadFormat.newDecoder();
        private final CharBuffer chars;

        // The record loaded last.
        private int totalBytes;
        private String rendered;
        private String failure;
        // Grown for the largest payload a decoder was given from a DirectBuffer (tail).
        private byte[] whole = new byte[0];

        private Printer(
                final PayloadFormat format,
                final int maxPayloadBytes,
                final PayloadDecoder decoder,
                final String decoderClass) {
            this.format = format;
            this.maxPayloadBytes = maxPayloadBytes;
            this.decoder = decoder;
            this.decoderClass = decoderClass;
            this.bytes = new byte[format == PayloadFormat.NONE ? 0 : maxPayloadBytes];
            this.chars = CharBuffer.allocate(format == PayloadFormat.UTF8 ? maxPayloadBytes : 0);
        }

        /** @return whether payloads show at all. */
        boolean showsPayloads() {
            return decoder != null || format != PayloadFormat.NONE;
        }

        /**
         * Loads a payload from a buffer (a dump's read window).
         *
         * @param lsn the record's position.
         * @param source the buffer.
         * @param index where the payload starts in it.
         * @param length the payload's length.
         */
        void load(final long lsn, final ByteBuffer source, final int index, final int length) {
            totalBytes = length;
            failure = null;
            if (decoder != null) {
                render(lsn, source.slice(index, length).asReadOnlyBuffer());
            } else {
                source.get(index, bytes, 0, shownBytes());
            }
        }

        /**
         * Loads a payload from a reader's buffer (tail).
         *
         * @param lsn the record's position.
         * @param source the buffer.
         * @param offset where the payload starts in it.
         * @param length the payload's length.
         */
        void load(final long lsn, final DirectBuffer source, final int offset, final int length) {
            totalBytes = length;
            failure = null;
            if (decoder != null) {
                if (whole.length < length) {
                    whole = new byte[Math.max(length, 2 * whole.length)];
                }
                source.getBytes(offset, whole, 0, length);
                render(lsn, ByteBuffer.wrap(whole, 0, length).slice().asReadOnlyBuffer());
            } else {
                source.getBytes(offset, bytes, 0, shownBytes());
            }
        }

        /**
         * Appends {@code " payload=..."} for the payload loaded last: the shown bytes, then {@code ...}
         * if cut; or the decoder's text; or {@code " payload-error=..."} if the decoder failed.
         *
         * @param out the line.
         */
        void appendText(final LineWriter out) {
            if (failure != null) {
                out.text(" payload-error=");
                Json.quote(out, failure);
                return;
            }
            out.text(" payload=");
            appendValue(out);
            if (cut()) {
                out.text("...");
            }
        }

        /**
         * Appends the payload loaded last as members of a JSON object: {@code "payload"} (a string, or
         * null if the decoder failed) and {@code "payloadTruncated"}, or {@code "payloadError"}.
         *
         * @param json the object being written.
         */
        void appendJson(final Json json) {
            if (failure != null) {
                json.nullField("payload").field("payloadError", failure);
                return;
            }
            final LineWriter out = json.value("payload");
            if (format == PayloadFormat.HEX && decoder == null) {
                out.character('"');
                appendValue(out);
                out.character('"');
            } else {
                appendValue(out);
            }
            json.field("payloadTruncated", cut());
        }

        private void appendValue(final LineWriter out) {
            if (decoder != null) {
                if (rendered == null) {
                    out.text("null");
                } else {
                    Json.quote(out, rendered);
                }
            } else {
                format.appendValue(out, bytes, shownBytes(), utf8, chars);
            }
        }

        private boolean cut() {
            return decoder == null && shownBytes() < totalBytes;
        }

        private int shownBytes() {
            return Math.min(totalBytes, maxPayloadBytes);
        }

        /** Shows, for the record at hand, why its payload cannot be shown. */
        void failed(final String why) {
            totalBytes = 0;
            rendered = null;
            failure = why;
        }

        private void render(final long lsn, final ByteBuffer payload) {
            failure = null;
            try {
                rendered = decoder.render(lsn, payload);
            } catch (final RuntimeException | LinkageError ex) {
                rendered = null;
                failure = "decoder " + decoderClass + " failed on the record at position " + lsn + ": "
                        + PayloadDecoders.reason(ex);
            }
        }
    }
}
