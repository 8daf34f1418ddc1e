package io.walden.crash.corruption;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

/**
 * The fixture of the structural and policy suites: one pristine sample log per backend plus one of
 * another log (a different identity), written once per test class in a scratch directory, and a
 * fresh work directory per test into which a pristine log is copied before it is damaged.
 *
 * <p><b>Threading:</b> used by the JUnit thread of one test class.
 */
final class PristineLogs implements AutoCloseable {
    private final Path root;
    private final Map<CorruptionBackend, SampleLog> pristine = new EnumMap<>(CorruptionBackend.class);
    private final SampleLog otherLog;
    private Path workDirectory;

    private PristineLogs(final String name, final long seed) throws IOException {
        root = ScratchDirectory.create(name);
        for (final CorruptionBackend backend : CorruptionBackend.values()) {
            pristine.put(backend, SampleLog.create(root.resolve("pristine-" + backend), backend, seed));
        }
        otherLog = SampleLog.create(root.resolve("other-log"), CorruptionBackend.NIO, seed + 1);
    }

    /**
     * Writes the pristine logs.
     *
     * @param name name of the scratch directory.
     * @param seed the sample logs' seed; the other log uses {@code seed + 1}.
     * @return the fixture.
     * @throws IOException if a log cannot be written.
     */
    static PristineLogs create(final String name, final long seed) throws IOException {
        return new PristineLogs(name, seed);
    }

    /** @return a log with another identity, whose segments are foreign to the pristine logs. */
    SampleLog otherLog() {
        return otherLog;
    }

    /**
     * Starts a test: creates its work directory.
     *
     * @return the work directory.
     * @throws IOException if it cannot be created.
     */
    Path newWorkDirectory() throws IOException {
        workDirectory = Files.createTempDirectory(root, "work-");
        return workDirectory;
    }

    /**
     * Ends a test: deletes its work directory.
     *
     * @throws IOException if it cannot be deleted.
     */
    void deleteWorkDirectory() throws IOException {
        ScratchDirectory.delete(workDirectory);
    }

    /**
     * A copy of a backend's pristine log in the work directory.
     *
     * @param backend the backend that wrote it.
     * @param name the directory name within the work directory.
     * @return the copy.
     * @throws IOException if it cannot be copied.
     */
    SampleLog copy(final CorruptionBackend backend, final String name) throws IOException {
        return pristine.get(backend).copyTo(workDirectory.resolve(name));
    }

    /**
     * A copy of a backend's pristine log as a crash left it, in the work directory.
     *
     * @param backend the backend that wrote it.
     * @param name the directory name within the work directory.
     * @return the copy.
     * @throws IOException if it cannot be copied.
     */
    SampleLog copyCrashed(final CorruptionBackend backend, final String name) throws IOException {
        return pristine.get(backend).crashed().copyTo(workDirectory.resolve(name));
    }

    /** Deletes the scratch directory. */
    @Override
    public void close() throws IOException {
        ScratchDirectory.delete(root);
    }
}
