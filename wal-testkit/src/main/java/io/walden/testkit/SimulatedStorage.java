package io.walden.testkit;

import io.walden.WalConfig;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SplittableRandom;

/**
 * A storage backend that simulates a disk losing power: pass it in a log's {@link WalConfig} and every
 * create, write, sync, rename, delete and directory sync the log makes goes to real files in the log
 * directory (the page cache's view, which the log reads back) and is recorded in a history that knows
 * what each completed sync made durable. A power failure then leaves what a real disk may leave.
 *
 * <pre>{@code
 * SimulatedStorage storage = SimulatedStorage.create(directory);
 * WalConfig config = storage.configBuilder().build();     // or WalConfig.builder(directory).backend(storage)
 * try (Wal wal = Wal.open(config)) {
 *     wal.append(record, Durability.SYNCED);
 * }
 * CrashReport report = storage.crash(seed);                 // the power fails, and comes back
 * try (Wal wal = Wal.open(config)) { ... }                  // recovery sees what the crash kept
 * }</pre>
 *
 * <p><b>What a power failure does.</b> Everything a completed fdatasync covered, and every create,
 * rename and delete a completed directory fsync covered, survives. Of the rest, a random choice
 * drawn from a seed: each 4 KiB page an unsynced write touched survives in its newest version, in none
 * (its durable content) or in a version in between, and independently of the other pages (a later page
 * may survive while an earlier one is lost); a surviving page may be torn at 512-byte sectors between
 * two of its versions; unsynced directory operations are forgotten as a prefix (as a journaling file
 * system forgets them) or as any subset (all that POSIX promises); a file may fall back to its last
 * synced size. A sync covers the writes whose completion the log had been told of when it submitted
 * the sync (the storage SPI's rule), not the writes that merely finished before it. O_DSYNC makes
 * each write durable on completion; O_DIRECT is checked for alignment and still needs a sync, since a
 * device's cache is volatile. Completions arrive after random delays and in random order, so syncs
 * overlap writes as on a real device.
 *
 * <p><b>What it does not model.</b> The device's own lies, which no software simulation can show: a
 * drive or controller that acknowledges a flush it has not done (a volatile write cache without power
 * loss protection), that writes to another place than asked, or that returns stale or flipped bits.
 * Nor metadata that a real file system may lose beyond names and sizes, bit rot, or media errors on
 * read. A log that survives every crash of this simulation still needs an honest device.
 *
 * <p><b>Power failures.</b> {@link #crashAfter} arms one at a chosen operation, {@link #powerOff} cuts
 * the power at once; either way every later operation fails (the log fails-stop), so nothing done
 * after it can be acknowledged. {@link #crash} then brings the power back: the directory is rewritten
 * to hold what the failure kept, and a log opened afterwards recovers from that; its own operations
 * start a new history, which may be crashed again. {@link #history()} gives the events so far, from
 * which {@link DiskHistory} builds the state after any prefix of them, for exhaustive small runs.
 *
 * <p><b>Faults.</b> {@link #failNextWrite}, {@link #failNextSync} and {@link #failNextDirectorySync}
 * make the next such operation fail with an errno, as the system call would; {@link #delayWritesNs}
 * and {@link #delaySyncsNs} make a slow device.
 *
 * <p>Keep logs small in crash tests: the simulation copies every byte a log writes, and rewrites the
 * whole directory at every crash. {@link #configBuilder()} starts from 1 MiB segments.
 *
 * <p><b>Threading:</b> thread-safe. The log's sessions use it as the storage SPI requires; a test
 * thread may arm faults and crash points and cut the power while the log runs.
 */
public final class SimulatedStorage implements StorageBackend {
    /** Segment capacity of {@link #configBuilder()}: small, so that crash states stay cheap. */
    public static final int CRASH_TEST_SEGMENT_BYTES = 1024 * 1024;
    /** Largest record of {@link #configBuilder()}. */
    public static final int CRASH_TEST_MAX_RECORD_BYTES = 64 * 1024;

    private final Path directory;
    private final StorageOptions options;
    private final SplittableRandom sessionSeeds;
    private final FaultPlan faults = new FaultPlan();
    private volatile SimulatedDisk disk;
    // Shared with the storages of other directories built with Builder#sharingPowerWith.
    private final PowerLine power;
    private volatile CrashReport lastCrash;
    private int crashCount;

    private SimulatedStorage(
            final Path directory,
            final StorageOptions options,
            final long seed,
            final SimulatedDisk disk,
            final PowerLine power) {
        this.directory = directory;
        this.options = options;
        this.sessionSeeds = new SplittableRandom(seed);
        this.power = power;
        this.disk = disk;
        disk.power(power);
        power.connect(this);
    }

    /** A storage over a directory whose files are known, without reading them again. */
    static SimulatedStorage onKnownFiles(
            final Path directory,
            final SortedMap<String, byte[]> files,
            final StorageOptions options,
            final long seed) {
        return new SimulatedStorage(directory, options, seed, new SimulatedDisk(directory, files), new PowerLine());
    }

    /**
     * A simulated storage for a log directory, with buffered writes made durable by fdatasync and
     * seed 0. Files already in the directory are durable.
     *
     * @param directory the log directory; created if missing.
     * @return the storage.
     * @throws IOException if the directory cannot be created or read.
     */
    public static SimulatedStorage create(final Path directory) throws IOException {
        return builder(directory).build();
    }

    /**
     * Starts a simulated storage for a log directory.
     *
     * @param directory the log directory; created if missing. Files already in it are durable.
     * @return a builder.
     */
    public static Builder builder(final Path directory) {
        return new Builder(directory);
    }

    @Override
    public String name() {
        return "simulated" + (options.directIo() ? "-direct" : "") + (options.dsync() ? "-dsync" : "");
    }

    @Override
    public StorageSession open(final Path logDirectory, final Runnable completionSignal) throws IOException {
        final SimulatedDisk current = disk;
        if (!logDirectory.toAbsolutePath().equals(directory.toAbsolutePath())) {
            throw new IOException("the simulated storage of " + directory + " cannot open " + logDirectory);
        }
        final long sessionSeed;
        synchronized (sessionSeeds) {
            sessionSeed = sessionSeeds.nextLong();
        }
        return new SimulatedSession(current, options, faults, new SplittableRandom(sessionSeed), completionSignal);
    }

    /** The power line failed: this storage's disk records nothing more until it crashes. */
    void latchPowerFailure() {
        disk.latch();
    }

    /** @return the log directory. */
    public Path directory() {
        return directory;
    }

    /** @return the I/O semantics simulated: buffered, O_DIRECT and/or O_DSYNC. */
    public StorageOptions options() {
        return options;
    }

    /**
     * A configuration for a log in this storage's directory on this storage, with sizes fit for crash
     * tests: {@value #CRASH_TEST_SEGMENT_BYTES}-byte segments, a log buffer of the same size, records of
     * at most {@value #CRASH_TEST_MAX_RECORD_BYTES} bytes. Change what the test needs before {@code
     * build()}.
     *
     * @return the builder.
     */
    public WalConfig.Builder configBuilder() {
        return WalConfig.builder(directory)
                .backend(this)
                .segmentCapacityBytes(CRASH_TEST_SEGMENT_BYTES)
                .bufferCapacityBytes(CRASH_TEST_SEGMENT_BYTES)
                .maxRecordBytes(CRASH_TEST_MAX_RECORD_BYTES);
    }

    /**
     * How many events the disk recorded since it was created or last came back from a crash. An
     * application that notes it when it receives an acknowledgement can tell, for a crash after any
     * number of events, which acknowledgements that crash must keep ({@link AckLedger} does so).
     *
     * @return the count.
     */
    public int eventCount() {
        return disk.eventCount();
    }

    /**
     * What happened on the disk since it was created or last came back from a crash.
     *
     * @return a snapshot of the history.
     */
    public DiskHistory history() {
        return disk.history();
    }

    /**
     * Arms a power failure right after an operation, counted from now: from then on every operation
     * fails, until {@link #crash} brings the power back.
     *
     * @param point where the power fails; replaces the point armed before.
     */
    public void crashAfter(final CrashPoint point) {
        disk.crashAfter(Objects.requireNonNull(point, "point"));
    }

    /** Cuts the power now: every operation fails from here on, until {@link #crash}. */
    public void powerOff() {
        disk.freeze();
    }

    /** @return whether the power has failed (and not yet come back). */
    public boolean poweredOff() {
        return disk.frozen();
    }

    /**
     * The power fails now, if it has not already, and comes back: the directory is rewritten to hold
     * what the failure kept of what was not durable, chosen at random from the seed, and everything in
     * it is durable from now on. A log still open on this storage keeps failing (close it, as the crashed
     * process would be gone); a log opened afterwards recovers from the new state.
     *
     * @param seed seeds every survival choice: the same history and seed give the same state.
     * @return what the crash kept.
     * @throws IOException if the directory cannot be rewritten.
     */
    public synchronized CrashReport crash(final long seed) throws IOException {
        final SimulatedDisk crashed = disk;
        if (!crashed.frozen()) {
            crashed.freeze();
        }
        final DiskHistory history = crashed.history();
        final DiskModel.Image image = history.image(history.size(), new SplittableRandom(seed));
        Directories.emptyFiles(directory);
        image.writeTo(directory);
        power.restore();
        final SimulatedDisk back = new SimulatedDisk(directory, image.files());
        back.power(power);
        disk = back;
        crashCount++;
        final CrashReport report = image.choices().build(history.size(), history.size());
        lastCrash = report;
        return report;
    }

    /** @return what the last {@link #crash} kept, or null if there was none. */
    public CrashReport lastCrash() {
        return lastCrash;
    }

    /** @return how many times {@link #crash} brought the power back. */
    public synchronized int crashCount() {
        return crashCount;
    }

    /**
     * Makes the next write to a segment file (log data or a segment header) fail with an error; it
     * writes nothing.
     *
     * @param errno the error, for example {@link Errno#ENOSPC}; null disarms.
     */
    public void failNextWrite(final Errno errno) {
        faults.arm(FaultPlan.Target.SEGMENT_WRITE, errno);
    }

    /**
     * Makes the next fdatasync of a segment file fail with an error; it makes nothing durable.
     *
     * @param errno the error, for example {@link Errno#EIO}; null disarms.
     */
    public void failNextSync(final Errno errno) {
        faults.arm(FaultPlan.Target.SEGMENT_SYNC, errno);
    }

    /**
     * Makes the next fsync of the log directory fail with an error; it makes nothing durable.
     *
     * @param errno the error; null disarms.
     */
    public void failNextDirectorySync(final Errno errno) {
        faults.arm(FaultPlan.Target.DIRECTORY_SYNC, errno);
    }

    /** @return how many armed faults operations have taken so far. */
    public int faultsInjected() {
        return faults.injectedCount();
    }

    /**
     * Makes every write complete no sooner than a delay after its submission (a slow device).
     *
     * @param delayNs the least delay; 0 for none.
     */
    public void delayWritesNs(final long delayNs) {
        faults.writeDelayNs(delayNs);
    }

    /**
     * Makes every fdatasync and directory fsync complete no sooner than a delay after its submission.
     *
     * @param delayNs the least delay; 0 for none.
     */
    public void delaySyncsNs(final long delayNs) {
        faults.syncDelayNs(delayNs);
    }

    /** Counts of the current disk's events, by kind: what a crash point can count. */
    int operationCount(final CrashPoint.Operation operation) {
        return disk.operationCount(operation);
    }

    @Override
    public String toString() {
        return "SimulatedStorage{" + directory + ", " + name() + ", " + eventCount() + " events"
                + (poweredOff() ? ", powered off" : "") + "}";
    }

    /**
     * Builds a {@link SimulatedStorage}.
     *
     * <p><b>Threading:</b> one thread.
     */
    public static final class Builder {
        private final Path directory;
        private StorageOptions options = StorageOptions.BUFFERED;
        private long seed;
        private SimulatedStorage sharedPower;

        private Builder(final Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /**
         * Sets the I/O semantics simulated.
         *
         * @param newOptions buffered (the default), O_DIRECT and/or O_DSYNC.
         * @return this builder.
         */
        public Builder options(final StorageOptions newOptions) {
            this.options = Objects.requireNonNull(newOptions, "options");
            return this;
        }

        /**
         * Sets the seed of the simulated completions: their delays and order, and how each session
         * behaves (whether appenders run their own I/O, whether an event-loop thread signals).
         *
         * @param newSeed the seed; 0 by default.
         * @return this builder.
         */
        public Builder seed(final long newSeed) {
            this.seed = newSeed;
            return this;
        }

        /**
         * Puts the storage on the same power supply as another, as two directories of one machine: a
         * power failure of either (its crash point, {@link SimulatedStorage#powerOff()}) is a failure of
         * both, at the same instant. Bring each back with its own {@link SimulatedStorage#crash}.
         *
         * @param other the storage whose power this one shares.
         * @return this builder.
         */
        public Builder sharingPowerWith(final SimulatedStorage other) {
            this.sharedPower = Objects.requireNonNull(other, "other");
            return this;
        }

        /**
         * Creates the storage: the directory if missing, and a disk on which every file already there
         * is durable.
         *
         * @return the storage.
         * @throws IOException if the directory cannot be created or read.
         */
        public SimulatedStorage build() throws IOException {
            Files.createDirectories(directory);
            return new SimulatedStorage(
                    directory,
                    options,
                    seed,
                    new SimulatedDisk(directory),
                    sharedPower == null ? new PowerLine() : sharedPower.power);
        }
    }
}
