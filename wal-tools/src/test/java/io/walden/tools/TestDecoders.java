package io.walden.tools;

import io.walden.tools.spi.PayloadDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Decoders for the tests of {@code --decoder}, loaded by name as a user's would be. */
final class TestDecoders {
    private TestDecoders() {}

    /**
     * What {@link Describe} renders for a payload: its position, length and text, with characters
     * that need escaping in a line and in JSON (quote, backslash, newline, tab, a control character,
     * the line separator).
     *
     * @param lsn the position.
     * @param payload the payload.
     * @return the text.
     */
    static String describe(final long lsn, final byte[] payload) {
        return "lsn=" + lsn + " bytes=" + payload.length + " \"" + new String(payload, StandardCharsets.UTF_8)
                + "\"\\\n\t\u0001\u2028end";
    }

    /** Renders {@link #describe}; checks that it gets the whole payload, read-only. */
    public static final class Describe implements PayloadDecoder {
        /** Creates the decoder. */
        public Describe() {
            // Stateless.
        }

        @Override
        public String render(final long lsn, final ByteBuffer payload) {
            if (!payload.isReadOnly()) {
                throw new IllegalStateException("the payload buffer must be read-only");
            }
            final byte[] bytes = new byte[payload.remaining()];
            payload.get(bytes);
            return describe(lsn, bytes);
        }
    }

    /** Fails on every record whose payload's first byte is odd, renders "ok" otherwise. */
    public static final class FailsOnOdd implements PayloadDecoder {
        /** Creates the decoder. */
        public FailsOnOdd() {
            // Stateless.
        }

        @Override
        public String render(final long lsn, final ByteBuffer payload) {
            if ((payload.get(payload.position()) & 1) != 0) {
                throw new IllegalArgumentException("odd first byte");
            }
            return "ok";
        }
    }

    /** Not a decoder. */
    public static final class NotADecoder {
        /** Creates it. */
        public NotADecoder() {
            // Nothing.
        }
    }

    /** A decoder without a no-argument constructor. */
    public static final class NeedsAnArgument implements PayloadDecoder {
        private final String prefix;

        /**
         * Creates the decoder.
         *
         * @param prefix what it renders first.
         */
        public NeedsAnArgument(final String prefix) {
            this.prefix = prefix;
        }

        @Override
        public String render(final long lsn, final ByteBuffer payload) {
            return prefix + lsn;
        }
    }

    /** A decoder whose constructor fails. */
    public static final class FailsToStart implements PayloadDecoder {
        /** Fails. */
        public FailsToStart() {
            throw new IllegalStateException("no schema registry configured");
        }

        @Override
        public String render(final long lsn, final ByteBuffer payload) {
            return "";
        }
    }
}
