package io.walden.crash.corruption;

import io.walden.testing.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Scratch directories for damaged logs: under {@code /dev/shm} where it exists (a tmpfs, so the many
 * reopen trials never touch a disk), else under the module's {@code target/}.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ScratchDirectory {
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");

    private ScratchDirectory() {}

    /**
     * Creates a new, empty directory.
     *
     * @param prefix prefix of its name.
     * @return the directory; the caller deletes it with {@link #delete(Path)}.
     * @throws IOException if it cannot be created.
     */
    static Path create(final String prefix) throws IOException {
        final Path root = Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY)
                ? SHARED_MEMORY
                : Files.createDirectories(
                        Path.of("target", "corruption-scratch").toAbsolutePath());
        return Files.createTempDirectory(root, "walden-" + prefix + "-");
    }

    /**
     * Deletes a directory tree; nothing if it is null or absent.
     *
     * @param directory the directory.
     * @throws IOException if something cannot be deleted.
     */
    static void delete(final Path directory) throws IOException {
        if (directory != null) {
            TestFiles.deleteRecursively(directory);
        }
    }

    /**
     * Makes {@code target} hold exactly the regular files of {@code source}, byte for byte.
     *
     * @param source the directory to copy.
     * @param target the directory to overwrite; created if absent.
     * @throws IOException on an I/O failure.
     */
    static void copyFiles(final Path source, final Path target) throws IOException {
        Files.createDirectories(target);
        try (Stream<Path> stale = Files.list(target)) {
            for (final Path path : (Iterable<Path>) stale::iterator) {
                TestFiles.deleteRecursively(path);
            }
        }
        try (Stream<Path> files = Files.list(source)) {
            for (final Path path : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(path)) {
                    Files.copy(path, target.resolve(path.getFileName()));
                }
            }
        }
    }
}
