/**
 * The {@code walden} command-line tool ({@code verify}, {@code stat}, {@code dump}, {@code tail}):
 * read-only, on the log's public API and format only. Its commands are picocli classes, opened to
 * picocli for its reflection.
 */
module io.walden.tools {
    requires io.walden.core;
    requires info.picocli;
    // The tool quiets the log's own INFO messages (java.util.logging, System.Logger's default).
    requires java.logging;

    opens io.walden.tools to
            info.picocli;
}
