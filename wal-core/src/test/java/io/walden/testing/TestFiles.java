package io.walden.testing;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** File helpers for tests. */
public final class TestFiles {
    private TestFiles() {}

    /**
     * Deletes a file or a directory tree; nothing if it does not exist.
     *
     * @param path the file or directory.
     * @throws IOException if something cannot be deleted.
     */
    public static void deleteRecursively(final Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        Files.walkFileTree(path, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path directory, final IOException exc) throws IOException {
                if (exc != null) {
                    throw exc;
                }
                Files.delete(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Every regular file of a directory tree but the lock file, by relative path, as a hex digest of
     * its bytes: to show that an operation changed no file of a log.
     *
     * @param directory the tree.
     * @return the digests, sorted by path.
     * @throws IOException if a file cannot be read.
     */
    public static java.util.Map<String, String> contents(final Path directory) throws IOException {
        final java.util.Map<String, String> contents = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> files = Files.walk(directory)) {
            for (final Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                final String name = directory.relativize(file).toString();
                if (!name.endsWith(".lock")) {
                    contents.put(name, digest(Files.readAllBytes(file)));
                }
            }
        }
        return contents;
    }

    private static String digest(final byte[] bytes) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(
                            java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (final java.security.NoSuchAlgorithmException ex) {
            throw new AssertionError(ex);
        }
    }
}
