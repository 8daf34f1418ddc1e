package io.walden.tools.spi;

import java.nio.ByteBuffer;

/**
 * Renders a record's payload as text for {@code walden dump} and {@code walden tail}, given with
 * {@code --decoder CLASS}: an application's own record format shown as something a person (or a
 * script, with {@code --json}) reads, instead of hex or raw UTF-8.
 *
 * <p>The class needs a public no-argument constructor and must be on the class path next to the tool:
 * {@code java -cp walden.jar:my-decoder.jar io.walden.tools.Walden dump --decoder com.example.MyDecoder
 * DIR} ({@code java -jar} ignores {@code -cp}). The tool makes one instance per command.
 *
 * <p>The text is shown whole, quoted and escaped (control characters, quotes, backslashes), so a
 * record stays one line whatever it returns. An exception thrown by {@link #render} is shown for that
 * record, with the decoder's class and the record's position, and the command goes on.
 *
 * <p><b>Threading:</b> called by one thread, one record at a time.
 */
@FunctionalInterface
public interface PayloadDecoder {
    /**
     * Renders one payload.
     *
     * @param lsn the record's position (its LSN).
     * @param payload the whole payload, from its position to its limit: a read-only buffer the tool
     *     made for this call (big-endian, as every new buffer), valid only during the call.
     * @return the text to show; null shows as {@code null}.
     */
    String render(long lsn, ByteBuffer payload);
}
