package io.walden.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Every entry under a directory, by relative name: directories as such, files with their size and
 * SHA-256. Two snapshots are equal when nothing was added, removed or changed by a single byte.
 *
 * @param root the directory.
 * @param entries relative name to "dir" or "size sha256".
 */
record DirectorySnapshot(Path root, Map<String, String> entries) {
    /**
     * Takes a snapshot; of a missing path, an empty one that says so.
     *
     * @param root the directory (or file, or nothing).
     * @return the snapshot.
     * @throws IOException if reading fails.
     */
    static DirectorySnapshot of(final Path root) throws IOException {
        final TreeMap<String, String> entries = new TreeMap<>();
        if (!Files.exists(root)) {
            entries.put("", "missing");
            return new DirectorySnapshot(root, entries);
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (final Path path : (Iterable<Path>) walk::iterator) {
                final String name = root.relativize(path).toString();
                entries.put(name, Files.isDirectory(path) ? "dir" : Files.size(path) + " " + sha256(path));
            }
        }
        return new DirectorySnapshot(root, entries);
    }

    /**
     * Asserts that the directory is exactly as this snapshot found it.
     *
     * @param what what ran in between, for the message.
     * @throws IOException if reading fails.
     */
    void assertUnchanged(final Object what) throws IOException {
        assertEquals(entries, of(root).entries(), () -> "the directory changed: " + what);
    }

    private static String sha256(final Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            final MessageDigest digest = MessageDigest.getInstance("SHA-256");
            final byte[] chunk = new byte[1 << 16];
            for (int read = in.read(chunk); read >= 0; read = in.read(chunk)) {
                digest.update(chunk, 0, read);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (final NoSuchAlgorithmException ex) {
            throw new AssertionError(ex);
        }
    }
}
