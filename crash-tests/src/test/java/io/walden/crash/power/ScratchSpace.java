package io.walden.crash.power;

import io.walden.testing.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the simulated disks keep their files: {@code /dev/shm} when it exists (memory, to spare the
 * disk and go faster), else the temporary directory.
 *
 * <p><b>Threading:</b> any thread.
 */
final class ScratchSpace implements AutoCloseable {
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");

    private final Path root;
    private final AtomicLong nextTry = new AtomicLong();

    private ScratchSpace(final Path root) {
        this.root = root;
    }

    /**
     * Creates a new scratch root.
     *
     * @return the scratch space.
     * @throws IOException if it cannot be created.
     */
    static ScratchSpace create() throws IOException {
        final Path parent = Files.isDirectory(SHARED_MEMORY) && Files.isWritable(SHARED_MEMORY)
                ? SHARED_MEMORY
                : Path.of(System.getProperty("java.io.tmpdir"));
        return new ScratchSpace(Files.createTempDirectory(parent, "walden-power-"));
    }

    /** @return the root. */
    Path root() {
        return root;
    }

    /**
     * A new directory for one try.
     *
     * @return the directory, created.
     * @throws IOException if it cannot be created.
     */
    Path newTryDirectory() throws IOException {
        return Files.createDirectory(root.resolve("try-" + nextTry.incrementAndGet()));
    }

    /** Deletes the scratch root and everything in it. */
    @Override
    public void close() throws IOException {
        TestFiles.deleteRecursively(root);
    }
}
