package io.walden.crash.follow;

import io.walden.LogInspection;
import io.walden.Wal;
import io.walden.WalView;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Opens fresh views of the live log again and again while the writer appends, rolls and deletes
 * segments, as a process that starts to follow the log at a random moment would: each must open (the
 * oldest segment may be deleted under it) and show {@code start <= durable <= written}. Each round also
 * lists the directory: only the writer's own files may be there (segments, segments being prepared, the
 * lock file), so no reader created anything.
 *
 * <p>With {@code -D}{@value #INSPECT_LIVE_PROPERTY}{@code =true} it also inspects the live log now and
 * then ({@link WalView#inspect()}), which must never find corruption (a write in progress is a torn
 * tail). Off by default: the inspection reads a segment's frames before its header and the later
 * segments, so a durability mark or a roll the writer makes during the inspection makes it report
 * damage that is not there (a known bug of {@code LogRecovery.inspect} on a log being written).
 *
 * <p><b>Threading:</b> runs on its own thread; the test thread reads the results after joining it.
 */
final class ViewOpener implements Runnable {
    /** The names the writer itself creates in its directory. */
    static final Pattern WRITER_FILE_NAMES = Pattern.compile("\\d{20}"
            + Pattern.quote(SegmentNames.SEGMENT_SUFFIX) + "|\\d{20}" + Pattern.quote(SegmentNames.TEMPORARY_SUFFIX)
            + "|\\d{20}" + Pattern.quote(SegmentNames.FREE_SUFFIX)
            + "|" + Pattern.quote(SegmentNames.LOCK_FILE_NAME));

    /** System property that turns on inspections of the live log. */
    static final String INSPECT_LIVE_PROPERTY = "crash.follow.inspectLive";

    private static final boolean INSPECT_LIVE = Boolean.getBoolean(INSPECT_LIVE_PROPERTY);
    private static final long PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(3);
    private static final int INSPECT_EVERY = 25;

    private final Path directory;
    private volatile boolean stop;
    // Written by the opener thread; read after the join.
    private long opens;
    private long inspections;
    private long tornTails;
    private long listings;
    private Throwable failure;

    /** @param directory the log directory. */
    ViewOpener(final Path directory) {
        this.directory = directory;
    }

    @Override
    public void run() {
        try {
            while (!stop) {
                try (WalView view = Wal.openReadOnly(directory)) {
                    final long start = view.startPosition();
                    final long durable = view.durablePosition();
                    final long written = view.writtenPosition();
                    if (!(start <= durable && durable <= written)) {
                        throw new AssertionError(
                                "a fresh view shows start " + start + ", durable " + durable + ", written " + written);
                    }
                    opens++;
                    if (INSPECT_LIVE && opens % INSPECT_EVERY == 0) {
                        final LogInspection inspection = view.inspect();
                        inspections++;
                        if (inspection.verdict() == LogInspection.Verdict.CORRUPTION) {
                            throw new AssertionError(
                                    "inspecting the healthy live log found corruption", inspection.corruption());
                        }
                        if (inspection.verdict() == LogInspection.Verdict.TORN_TAIL) {
                            tornTails++;
                        }
                    }
                }
                checkNames(directory);
                listings++;
                LockSupport.parkNanos(PAUSE_NS);
            }
        } catch (final Throwable ex) {
            failure = ex;
        }
    }

    /**
     * Checks that a log directory holds only files the writer creates.
     *
     * @param directory the log directory.
     * @return the names, sorted.
     * @throws IOException if it cannot be listed.
     * @throws AssertionError naming a file the writer does not create.
     */
    static List<String> checkNames(final Path directory) throws IOException {
        final List<String> names;
        try (Stream<Path> entries = Files.list(directory)) {
            names = entries.map(path -> path.getFileName().toString()).sorted().toList();
        }
        for (final String name : names) {
            if (!WRITER_FILE_NAMES.matcher(name).matches()) {
                throw new AssertionError(
                        "the log directory holds " + name + ", which the writer does not create: " + names);
            }
        }
        return names;
    }

    /** Stops the thread after its current round. */
    void stop() {
        stop = true;
    }

    /** @return views opened and checked. */
    long opens() {
        return opens;
    }

    /** @return live inspections made. */
    long inspections() {
        return inspections;
    }

    /** @return live inspections that found a write in progress (a torn tail). */
    long tornTails() {
        return tornTails;
    }

    /** @return directory listings checked. */
    long listings() {
        return listings;
    }

    /** @return what ended it abnormally, or null. */
    Throwable failure() {
        return failure;
    }
}
