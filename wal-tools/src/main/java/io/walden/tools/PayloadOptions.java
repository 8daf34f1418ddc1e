package io.walden.tools;

import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The payload options {@code dump} and {@code tail} share ({@code --payload}, {@code
 * --max-payload-bytes}), as a picocli mixin, and the printer they make.
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

    /** Creates the options; picocli fills them. */
    PayloadOptions() {
        // Options only.
    }

    /**
     * Checks the options.
     *
     * @param spec the command, for the usage error.
     * @throws CommandLine.ParameterException if {@code --max-payload-bytes} is out of range.
     */
    void validate(final CommandSpec spec) {
        if (maxPayloadBytes < 0 || maxPayloadBytes > MAX_PAYLOAD_BYTES_LIMIT) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--max-payload-bytes must be between 0 and " + MAX_PAYLOAD_BYTES_LIMIT + ", not "
                            + maxPayloadBytes);
        }
    }

    /** @return a printer for these options. */
    Printer printer() {
        return new Printer(format, maxPayloadBytes);
    }

    /**
     * Appends payloads to lines, with its own scratch space: nothing is allocated per record.
     *
     * <p><b>Threading:</b> one thread.
     */
    static final class Printer {
        private final PayloadFormat format;
        private final int maxPayloadBytes;
        private final byte[] bytes;
        private final CharsetDecoder decoder = PayloadFormat.newDecoder();
        private final CharBuffer chars;

        private Printer(final PayloadFormat format, final int maxPayloadBytes) {
            this.format = format;
            this.maxPayloadBytes = maxPayloadBytes;
            this.bytes = new byte[format == PayloadFormat.NONE ? 0 : maxPayloadBytes];
            this.chars = CharBuffer.allocate(format == PayloadFormat.UTF8 ? maxPayloadBytes : 0);
        }

        /** @return whether payloads show at all. */
        boolean showsPayloads() {
            return format != PayloadFormat.NONE;
        }

        /**
         * @param totalBytes a payload's length.
         * @return how many of its first bytes show.
         */
        int shownBytes(final int totalBytes) {
            return Math.min(totalBytes, maxPayloadBytes);
        }

        /** @return where the caller copies the shown bytes before {@link #append}. */
        byte[] scratch() {
            return bytes;
        }

        /**
         * Appends {@code " payload=..."} from the scratch bytes, or nothing for {@code none}.
         *
         * @param out the line.
         * @param totalBytes the payload's length; {@link #shownBytes} of it are in the scratch.
         */
        void append(final LineWriter out, final int totalBytes) {
            format.append(out, bytes, shownBytes(totalBytes), totalBytes, decoder, chars);
        }
    }
}
