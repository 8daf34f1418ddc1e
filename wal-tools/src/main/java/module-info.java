/**
 * The {@code walden} command-line tool ({@code verify}, {@code stat}, {@code dump}, {@code tail}, and
 * offline {@code truncate-after} and {@code repair}), on the log's public API and format only. Its
 * commands are picocli classes, opened to picocli for its reflection. It exports one package, {@code
 * io.walden.tools.spi}: the {@code PayloadDecoder} an application implements for {@code --decoder}.
 * The commands that change a log open it with the best storage backend found at run time ({@code
 * wal-nio}, on the class path of the tool's jar).
 */
module io.walden.tools {
    requires io.walden.core;
    requires info.picocli;
    // The tool quiets the log's own INFO messages (java.util.logging, System.Logger's default).
    requires java.logging;

    exports io.walden.tools.spi;

    // dump decodes payloads stored encoded with the codecs on the class path (wal-codecs is in the jar).
    uses io.walden.codec.RecordCodec;

    opens io.walden.tools to
            info.picocli;
}
