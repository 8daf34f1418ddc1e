package io.walden.examples.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key-value store: its operations, rebuilding its map at open, segment rolls and a crash image. */
final class KvStoreTest {
    /** Small segments, so that a few thousand changes roll the log several times. */
    private static final int SEGMENT_BYTES = 1024 * 1024;

    @TempDir
    Path directory;

    @TempDir
    Path imageDirectory;

    @Test
    void putGetDelete() {
        try (KvStore store = KvStore.open(config(directory))) {
            assertNull(store.get("a"));
            store.put("a", "1");
            store.put("b", "2");
            store.put("a", "3");
            assertEquals("3", store.get("a"));
            assertEquals("2", store.get("b"));
            store.delete("a");
            store.delete("never-there");
            assertNull(store.get("a"));
            assertEquals(Map.of("b", "2"), store.snapshot());
        }
    }

    @Test
    void reopenRebuildsTheSameMap() {
        final Map<String, String> expected;
        try (KvStore store = KvStore.open(config(directory))) {
            store.put("a", "1");
            store.put("b", "");
            store.put("ключ", "значение ✓");
            store.put("a", "2");
            store.delete("b");
            store.put("c", "3");
            expected = store.snapshot();
        }
        assertEquals(Map.of("a", "2", "ключ", "значение ✓", "c", "3"), expected);

        try (KvStore store = KvStore.open(config(directory))) {
            assertEquals(expected, store.snapshot());
            store.put("d", "4");
        }
        try (KvStore store = KvStore.open(config(directory))) {
            assertEquals("4", store.get("d"));
            assertEquals(4, store.snapshot().size());
        }
    }

    @Test
    void manyChangesAcrossSegmentRolls() throws IOException {
        final Map<String, String> expected = new HashMap<>();
        try (KvStore store = KvStore.open(config(directory))) {
            applyChanges(store, expected, 0, 4_000);
            assertEquals(expected, store.snapshot());
        }
        assertTrue(segmentCount(directory) >= 4, "the changes should have rolled the log several times");

        try (KvStore store = KvStore.open(config(directory))) {
            assertEquals(expected, store.snapshot());
        }
    }

    @Test
    void aCrashImageReopensWithEveryAcknowledgedChange() throws IOException {
        final Map<String, String> expected = new HashMap<>();
        try (KvStore store = KvStore.open(config(directory))) {
            applyChanges(store, expected, 0, 1_500);
            // What a kill -9 leaves: the files as they are, no clean close recorded. Copied while
            // the store is open and no change is in progress.
            crashImage(directory, imageDirectory);
            // Changes after the image are not in it.
            store.put("after-the-image", "x");
        }
        assertTrue(segmentCount(imageDirectory) >= 2, "the image should span a segment roll");

        try (KvStore recovered = KvStore.open(config(imageDirectory))) {
            assertEquals(expected, recovered.snapshot());
            // The recovered store goes on.
            recovered.put("after-recovery", "y");
            expected.put("after-recovery", "y");
        }
        try (KvStore reopened = KvStore.open(config(imageDirectory))) {
            assertEquals(expected, reopened.snapshot());
        }
    }

    /**
     * Puts and deletes over a few hundred keys, with values of about 1 KiB, mirrored in a map.
     */
    private static void applyChanges(
            final KvStore store, final Map<String, String> expected, final int from, final int to) {
        for (int i = from; i < to; i++) {
            final String key = "key-" + (i % 300);
            if (i % 7 == 6) {
                store.delete(key);
                expected.remove(key);
            } else {
                final String value = i + ":" + "v".repeat(1_000 + i % 100);
                store.put(key, value);
                expected.put(key, value);
            }
        }
    }

    /**
     * 1 MiB segments, and nothing else: unset, the log buffer follows the segment capacity down (8 MiB,
     * or the segment capacity if smaller: 1 MiB) and so does the largest record (1 MiB, or what half
     * the buffer holds if less: about 510 KiB).
     */
    private static WalConfig config(final Path directory) {
        return WalConfig.builder(directory).segmentCapacityBytes(SEGMENT_BYTES).build();
    }

    /** Copies the files of a live log (not its lock file) into another directory. */
    private static void crashImage(final Path live, final Path target) throws IOException {
        final List<Path> files;
        try (Stream<Path> entries = Files.list(live)) {
            files = entries.filter(Files::isRegularFile)
                    .filter(path -> !path.getFileName().toString().equals(SegmentNames.LOCK_FILE_NAME))
                    .collect(Collectors.toList());
        }
        for (final Path file : files) {
            try {
                Files.copy(file, target.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            } catch (final NoSuchFileException ex) {
                // A segment being prepared was renamed meanwhile: a crash may find either name.
            }
        }
    }

    private static long segmentCount(final Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(path -> path.getFileName().toString().endsWith(SegmentNames.SEGMENT_SUFFIX))
                    .count();
        }
    }
}
