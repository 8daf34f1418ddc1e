package io.walden.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where the harnesses and benchmarks put their logs: by default a fresh directory under {@code
 * target/} of the working directory (a real disk, unlike a tmpfs {@code /tmp}), or under the
 * directory named by the {@value #BASE_DIR_PROP_NAME} system property.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class BenchFiles {
    /** System property naming the directory under which fresh log directories are created. */
    public static final String BASE_DIR_PROP_NAME = "walden.bench.dir";

    private BenchFiles() {}

    /**
     * Creates a fresh, empty directory.
     *
     * @param prefix start of its name.
     * @return the directory.
     */
    public static Path freshDirectory(final String prefix) {
        try {
            final Path base = Path.of(System.getProperty(BASE_DIR_PROP_NAME, "target"));
            Files.createDirectories(base);
            return Files.createTempDirectory(base, prefix).toAbsolutePath();
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot create a directory for the log: " + ex, ex);
        }
    }

    /**
     * Deletes a directory and everything in it. Missing is fine.
     *
     * @param directory the directory.
     */
    public static void deleteRecursively(final Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (final Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot delete " + directory + ": " + ex, ex);
        }
    }

    /**
     * Bytes as MiB with one decimal.
     *
     * @param bytes the size.
     * @return the text, e.g. {@code 8.0 MiB}.
     */
    static String mib(final long bytes) {
        return String.format("%.1f MiB", bytes / (1024.0 * 1024.0));
    }
}
