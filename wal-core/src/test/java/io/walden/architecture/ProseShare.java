package io.walden.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Counts the prose in Java sources: non-blank lines, and the non-blank lines inside Javadoc comments
 * ({@code /** ... *}{@code /}), the measure of the prose bar (at most a quarter of wal-core's main
 * lines); and the lines that carry a {@code @param} or {@code @return} tag.
 */
final class ProseShare {
    private static final Pattern TAG = Pattern.compile("^\\s*(/\\*\\*|\\*)\\s*@(param|return)\\b");

    private long lines;
    private long javadocLines;
    private long tagLines;

    static ProseShare of(final Path root) {
        final ProseShare share = new ProseShare();
        try (Stream<Path> files = Files.walk(root)) {
            for (final Path file :
                    (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                share.add(Files.readAllLines(file));
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return share;
    }

    void add(final List<String> source) {
        boolean inJavadoc = false;
        for (final String line : source) {
            final String text = line.strip();
            if (text.isEmpty()) {
                continue;
            }
            lines++;
            if (!inJavadoc && text.startsWith("/**")) {
                inJavadoc = true;
            }
            if (inJavadoc) {
                javadocLines++;
                if (TAG.matcher(line).find()) {
                    tagLines++;
                }
                if (text.endsWith("*/")) {
                    inJavadoc = false;
                }
            }
        }
    }

    long lines() {
        return lines;
    }

    long javadocLines() {
        return javadocLines;
    }

    long tagLines() {
        return tagLines;
    }

    double javadocShare() {
        return lines == 0 ? 0 : (double) javadocLines / lines;
    }
}
