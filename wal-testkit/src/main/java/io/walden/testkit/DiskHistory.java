package io.walden.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * What happened on a {@link SimulatedStorage}'s disk: the files it started with (all durable) and
 * every {@link DiskEvent} since, in order. From it, the state the disk would be in had the power
 * failed after any prefix of those events can be built, as often as wanted, each time with other
 * random survival choices: the crash states of one run of a workload, for exhaustive small runs.
 *
 * <pre>{@code
 * DiskHistory history = storage.history();          // after the workload, the log closed or the power off
 * for (CrashState state : history.crashStates(scratchDirectory, 3, seed)) {
 *     try (Wal wal = Wal.open(config(state.directory(), state.newStorage(seed)))) {
 *         ledger.verify(wal, state.eventCount());     // what was promised by then survived
 *     }
 * }
 * }</pre>
 *
 * <p><b>Threading:</b> not thread-safe: building a crash state replays events into a model that the
 * next call reuses (ascending event counts are cheapest).
 */
public final class DiskHistory {
    private final List<DiskModel.InitialFile> initialFiles;
    private final List<DiskEvent> events;
    private DiskModel model;

    DiskHistory(final List<DiskModel.InitialFile> initialFiles, final List<DiskEvent> events) {
        this.initialFiles = initialFiles;
        this.events = events;
    }

    /** @return every event, in order. */
    public List<DiskEvent> events() {
        return events;
    }

    /** @return how many events the history holds. */
    public int size() {
        return events.size();
    }

    /**
     * Builds the directory the disk would leave had the power failed after a number of its events:
     * everything durable by then, and a random choice among what was not.
     *
     * @param eventCount how many events happened before the power failed, from 0 to {@link #size()}.
     * @param random the source of every survival choice.
     * @param target an existing directory that holds no file of the log.
     * @return the crash state, built in {@code target}.
     * @throws IOException if a file cannot be written.
     */
    public CrashState crash(final int eventCount, final SplittableRandom random, final Path target) throws IOException {
        final DiskModel.Image image = image(eventCount, random);
        image.writeTo(target);
        return new CrashState(target, image.files(), image.choices().build(eventCount, events.size()));
    }

    /**
     * The crash states after every event, {@code choicesPerPoint} of them per point, in order of the
     * event count: each is built in the same directory, which is emptied first (close the log opened on
     * the previous state before), and is valid until the iterator moves on.
     *
     * @param target an existing directory, used for every state.
     * @param choicesPerPoint how many random survival choices per crash point, at least 1.
     * @param seed seeds the choices.
     * @return the states; the iterator throws {@link java.io.UncheckedIOException} if a file cannot be
     *     written.
     */
    public Iterable<CrashState> crashStates(final Path target, final int choicesPerPoint, final long seed) {
        if (choicesPerPoint < 1) {
            throw new IllegalArgumentException("choicesPerPoint " + choicesPerPoint + " is less than 1");
        }
        return () -> new Iterator<>() {
            private final SplittableRandom random = new SplittableRandom(seed);
            private int eventCount;
            private int choice;

            @Override
            public boolean hasNext() {
                return eventCount <= events.size();
            }

            @Override
            public CrashState next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("every crash state of " + events.size() + " events was built");
                }
                final int point = eventCount;
                if (++choice == choicesPerPoint) {
                    choice = 0;
                    eventCount++;
                }
                try {
                    Directories.emptyTree(target);
                    return crash(point, random, target);
                } catch (final IOException ex) {
                    throw new java.io.UncheckedIOException(
                            "cannot build the crash state after event " + point + " in " + target, ex);
                }
            }
        };
    }

    /** The files a crash after {@code eventCount} events leaves, without writing them. */
    DiskModel.Image image(final int eventCount, final SplittableRandom random) {
        if (eventCount < 0 || eventCount > events.size()) {
            throw new IllegalArgumentException(
                    "event count " + eventCount + " is outside the history's 0.." + events.size());
        }
        if (model == null || model.appliedCount() > eventCount) {
            model = new DiskModel(initialFiles);
        }
        while (model.appliedCount() < eventCount) {
            model.apply(events.get(model.appliedCount()));
        }
        return model.crash(random);
    }

    /**
     * The last few events before a crash point, for failure messages.
     *
     * @param eventCount the crash point.
     * @return a description, one event a line.
     */
    public String lastEvents(final int eventCount) {
        final StringBuilder text = new StringBuilder("; last events:");
        for (int i = Math.max(0, eventCount - 6); i < eventCount; i++) {
            text.append("\n      #").append(i).append(' ').append(events.get(i).describe());
        }
        return text.toString();
    }
}
