package io.walden.testkit;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * File chores of the kit: where its scratch directories go, emptying a log directory before a crash
 * state is written into it, and deleting a tree.
 *
 * <p><b>Threading:</b> stateless.
 */
final class Directories {
    /** Memory, where it exists: crash states are written by the thousand. */
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");

    private Directories() {}

    /**
     * Creates a new scratch directory in {@code /dev/shm} if it is there and writable, else in the
     * temporary directory.
     *
     * @param prefix the start of its name.
     * @return the new directory.
     * @throws IOException if it cannot be created.
     */
    static Path newScratch(final String prefix) throws IOException {
        if (Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY)) {
            return Files.createTempDirectory(SHARED_MEMORY, prefix);
        }
        return Files.createTempDirectory(prefix);
    }

    /**
     * Deletes the regular files of a directory but the log's lock file, which a log still open in it
     * may hold; subdirectories (recovery evidence) stay.
     *
     * @param directory the directory.
     * @throws IOException if a file cannot be deleted.
     */
    static void emptyFiles(final Path directory) throws IOException {
        final List<Path> files;
        try (Stream<Path> entries = Files.list(directory)) {
            files = entries.filter(Files::isRegularFile)
                    .filter(file -> !SegmentNames.LOCK_FILE_NAME.equals(
                            file.getFileName().toString()))
                    .toList();
        }
        for (final Path file : files) {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Deletes everything in a directory, which stays.
     *
     * @param directory the directory.
     * @throws IOException if something cannot be deleted.
     */
    static void emptyTree(final Path directory) throws IOException {
        final List<Path> children;
        try (Stream<Path> entries = Files.list(directory)) {
            children = entries.toList();
        }
        for (final Path child : children) {
            deleteTree(child);
        }
    }

    /**
     * Deletes a directory and everything below it; nothing if it does not exist.
     *
     * @param root the directory.
     * @throws IOException if something cannot be deleted.
     */
    static void deleteTree(final Path root) throws IOException {
        if (Files.notExists(root)) {
            return;
        }
        final List<Path> deepestFirst;
        try (Stream<Path> tree = Files.walk(root)) {
            deepestFirst = tree.sorted(Comparator.reverseOrder()).toList();
        }
        for (final Path path : deepestFirst) {
            Files.deleteIfExists(path);
        }
    }
}
