package io.walden.bench.harness;

import io.walden.bench.BenchFiles;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * One store through the {@code groups} workload, in this JVM: note the heap and resident memory after
 * a full GC, open the store (timed), run the writers ({@link GroupsDriver}), note the memory again with
 * the store open and idle, close it, open it again (timed; for {@code walden-groups} with the group
 * log's scan figures) and check every group's last index where the store can tell it cheaply. Before
 * all that, the same kind of store is opened and closed once with one group, so that loading its
 * classes and native library is not counted as its memory. Prints what it did beyond the result.
 *
 * <p><b>Threading:</b> the calling thread; the driver starts the writers.
 */
final class GroupsRun {
    private final GroupStoreKind kind;
    private final GroupsWorkload workload;
    private final GroupStoreSettings settings;
    private final Path directory;
    private final BlockDevice device;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    /**
     * Prepares a run.
     *
     * @param kind the store.
     * @param workload the workload.
     * @param settings the sizes of the stores with a log per group.
     * @param directory a directory for the store, which it creates.
     * @param device the device under it, or null to not count device bytes.
     */
    GroupsRun(
            final GroupStoreKind kind,
            final GroupsWorkload workload,
            final GroupStoreSettings settings,
            final Path directory,
            final BlockDevice device) {
        this.kind = kind;
        this.workload = workload;
        this.settings = settings;
        this.directory = directory;
        this.device = device;
    }

    /**
     * Runs the store.
     *
     * @return its figures, or a failed result naming what failed.
     * @throws Exception if the store fails to close.
     */
    GroupsResult run() throws Exception {
        prime();
        final long[] lastIndexes = new long[workload.groups() + 1];
        final long heapBeforeBytes = idleHeapBytes();
        final long residentBeforeBytes = ProcessStatus.residentBytes();
        final long openStartNs = System.nanoTime();
        final GroupStore store;
        try {
            store = kind.open(directory, workload, settings);
        } catch (final Exception | Error ex) {
            return GroupsResult.failed(kind.id, workload, "cannot open: " + oneLine(ex));
        }
        final double openMs = (System.nanoTime() - openStartNs) / 1e6;
        final GroupsDriver.Load load;
        final long heapIdleBytes;
        final long residentIdleBytes;
        try {
            load = new GroupsDriver(workload).run(store, directory, device, lastIndexes);
            final String detail = store.runDetail();
            if (!detail.isEmpty()) {
                System.out.println("  " + detail);
            }
            heapIdleBytes = idleHeapBytes();
            residentIdleBytes = ProcessStatus.residentBytes();
        } finally {
            store.close();
        }
        final double[] reopen = new double[3];
        final String check = reopen(lastIndexes, load.failures() == 0, reopen);
        final double perGroup = workload.groups();
        return result(
                load,
                (heapIdleBytes - heapBeforeBytes) / perGroup,
                residentBeforeBytes < 0 ? Double.NaN : (residentIdleBytes - residentBeforeBytes) / perGroup,
                openMs,
                reopen,
                check);
    }

    private GroupsResult result(
            final GroupsDriver.Load load,
            final double heapPerGroup,
            final double residentPerGroup,
            final double openMs,
            final double[] reopen,
            final String check) {
        final Probe.Reading reading = load.reading();
        final double seconds = reading.seconds();
        final double entries = (double) load.batches() * workload.entriesPerBatch();
        final String failures =
                load.failures() == 0 ? "" : load.failures() + " writer(s) failed: " + load.firstFailure();
        final String note = String.join(
                "; ", Stream.of(failures, check).filter(s -> !s.isEmpty()).toList());
        if (load.batches() == 0) {
            return GroupsResult.failed(
                    kind.id, workload, "no batch completed in the window" + (note.isEmpty() ? "" : ": " + note));
        }
        return new GroupsResult(
                kind.id,
                workload.groups(),
                workload.writers(),
                workload.entryBytes(),
                workload.entriesPerBatch(),
                workload.groupsPerBatch(),
                entries / seconds,
                load.batches() / seconds,
                load.p50Ns() / 1e3,
                load.p99Ns() / 1e3,
                load.p999Ns() / 1e3,
                load.maxNs() / 1e3,
                load.deviceBytes() < 0 ? Double.NaN : load.deviceBytes() / (double) load.payloadBytes(),
                heapPerGroup,
                residentPerGroup,
                reading.peakThreads(),
                load.osThreadsPeak() < 0 ? Double.NaN : load.osThreadsPeak(),
                openMs,
                reopen[0],
                reopen[1],
                reopen[2],
                reading.cpuSeconds() / seconds,
                reading.heapPeakBytes() / (1024.0 * 1024.0),
                reading.allocatedBytes() / entries,
                entries,
                seconds,
                note);
    }

    /**
     * Opens the closed store again, timed, and checks every group's last index where the store can tell.
     *
     * @param lastIndexes the last index the writers gave each group.
     * @param check whether to check (no writer failed mid-batch).
     * @param figures receives the reopen's milliseconds, the MiB its scan read and the scan's ms (NaN unknown).
     * @return empty, or what went wrong.
     */
    private String reopen(final long[] lastIndexes, final boolean check, final double[] figures) throws Exception {
        Arrays.fill(figures, Double.NaN);
        final long startNs = System.nanoTime();
        final GroupStore store;
        try {
            store = kind.open(directory, workload, settings);
        } catch (final Exception | Error ex) {
            return "cannot reopen: " + oneLine(ex);
        }
        try {
            figures[0] = (System.nanoTime() - startNs) / 1e6;
            if (store.openScanNs() >= 0) {
                figures[1] = store.openScannedBytes() / (1024.0 * 1024.0);
                figures[2] = store.openScanNs() / 1e6;
            }
            final String detail = store.openDetail();
            System.out.printf(
                    Locale.ROOT,
                    "  %s reopened in %.1f ms%s%n",
                    kind.id,
                    figures[0],
                    detail.isEmpty() ? "" : ": " + detail);
            return check ? checkLastIndexes(store, lastIndexes) : "";
        } finally {
            store.close();
        }
    }

    private String checkLastIndexes(final GroupStore store, final long[] lastIndexes) throws Exception {
        int mismatches = 0;
        String first = "";
        for (int g = 1; g < lastIndexes.length; g++) {
            final long found = store.lastIndex(g);
            if (found < 0) {
                System.out.printf(Locale.ROOT, "  %s: last indexes not checked (no cheap way to read them)%n", kind.id);
                return "";
            }
            if (found != lastIndexes[g]) {
                if (mismatches++ == 0) {
                    first = "group " + g + " holds up to index " + found + ", the writers wrote up to "
                            + lastIndexes[g];
                }
            }
        }
        if (mismatches > 0) {
            return "after reopening, " + mismatches + " group(s) have another last index than written, e.g. " + first;
        }
        System.out.printf(
                Locale.ROOT, "  %s: every group's last index after reopening is the last one written%n", kind.id);
        return "";
    }

    /** Opens and closes the same kind of store with one group, in a scratch directory. */
    private void prime() {
        final Path scratch = BenchFiles.freshDirectory("groups-prime-");
        final GroupsWorkload one = new GroupsWorkload(1, 1, workload.entryBytes(), 1, 1, 0, 1, workload.seed());
        try (GroupStore store = kind.open(scratch.resolve("store"), one, settings)) {
            store.writer(0);
        } catch (final Exception | Error ex) {
            // The run itself will fail the same way and say so.
        } finally {
            BenchFiles.deleteRecursively(scratch);
        }
    }

    /** Heap in use after two full collections. */
    private long idleHeapBytes() {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** An exception in one line: its class and message, and its cause's where the message lacks it. */
    static String oneLine(final Throwable ex) {
        final Throwable cause = ex.getCause();
        final String message = String.valueOf(ex.getMessage());
        final String text = cause != null && cause != ex && !message.contains(cause.toString())
                ? ex + " (cause: " + cause + ")"
                : ex.toString();
        return text.strip().replace('\n', ' ').replace('\r', ' ');
    }
}
