package io.walden.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A new directory under the system's temporary directory that {@link #close()} deletes with
 * everything in it: where an example keeps a log that no one asked it to keep.
 */
final class TemporaryDirectory implements AutoCloseable {
    private final Path path;

    /**
     * Takes charge of an existing directory: {@link #close()} deletes it.
     *
     * @param path the directory.
     */
    TemporaryDirectory(final Path path) {
        this.path = path;
    }

    /**
     * Creates a new temporary directory.
     *
     * @param prefix the start of its name.
     * @return the directory; close it to delete it.
     * @throws IOException if it cannot be created.
     */
    static TemporaryDirectory create(final String prefix) throws IOException {
        return new TemporaryDirectory(Files.createTempDirectory(prefix));
    }

    /** @return the directory's path. */
    Path path() {
        return path;
    }

    /**
     * Deletes the directory and everything in it, deepest first. Idempotent.
     *
     * @throws IOException if something in it cannot be deleted.
     */
    @Override
    public void close() throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        final List<Path> deepestFirst;
        try (Stream<Path> walk = Files.walk(path)) {
            deepestFirst = walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
        }
        for (final Path entry : deepestFirst) {
            Files.deleteIfExists(entry);
        }
    }
}
