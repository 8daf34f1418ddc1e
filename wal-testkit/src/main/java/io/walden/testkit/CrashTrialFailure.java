package io.walden.testkit;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A crash test's body failed in a trial: the message names the trial, its seed and crash point (moved
 * as early as it still fails), what the crash kept, where the trial's directory was kept, and the
 * system property that replays it; the cause is the body's own failure.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class CrashTrialFailure extends AssertionError {
    private static final long serialVersionUID = 1L;

    /** The replay key, {@code seed:point}. */
    private final String replayKey;
    /** The key of the trial as it first failed, before shrinking. */
    private final String originalKey;
    /** The run's scratch directory, which holds the failing trial's. */
    private final transient Path runDirectory;

    CrashTrialFailure(
            final String message,
            final String replayKey,
            final String originalKey,
            final Path runDirectory,
            final Throwable cause) {
        super(message, cause);
        this.replayKey = replayKey;
        this.originalKey = originalKey;
        this.runDirectory = runDirectory;
    }

    /**
     * What replays the failing trial: {@code -D}{@value CrashTrials#REPLAY_PROPERTY}{@code =<key>}, the
     * {@code replay} attribute of {@link WalCrashTest}, or {@link CrashTrials#replay(String)}.
     *
     * @return the key, {@code <seed>:<crash point>}, for example {@code 8123:sync#2}.
     */
    public String replayKey() {
        return replayKey;
    }

    /**
     * Deletes the directory kept for inspection (the failing trial's log, in the run's scratch
     * directory, which the report names), once it is no longer needed: a test that fails trials on
     * purpose cleans up after itself with it.
     *
     * @throws IOException if something cannot be deleted.
     */
    public void deleteKeptDirectory() throws IOException {
        if (runDirectory != null) {
            Directories.deleteTree(runDirectory);
        }
    }

    /** @return the key of the trial as it first failed, before its crash point was moved earlier. */
    String originalKey() {
        return originalKey;
    }
}
