package io.walden.crash.power;

import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A storage backend over a {@link SimulatedDisk}: files are real files, so the core reads what it
 * wrote through its own file channels, and every operation is recorded so that {@link DiskModel} can
 * tell what a power failure at any point would leave. Completions are delayed by a random number of
 * polls and delivered in random order, so syncs overlap writes as they do on a real device.
 *
 * <p>The options choose the semantics simulated: buffered writes made durable by a sync, O_DIRECT
 * (alignment is checked; writes still need a sync, since a device cache is volatile), and O_DSYNC
 * (a write is durable when it completes).
 *
 * <p><b>Threading:</b> immutable; each session is used by one thread at a time, as the SPI requires.
 */
final class SimulatedBackend implements StorageBackend {
    private final SimulatedDisk disk;
    private final StorageOptions options;
    private final SplittableRandom seeds;

    /**
     * Creates a backend for one disk.
     *
     * @param disk the disk, whose directory is the log directory.
     * @param options buffered, O_DIRECT and/or O_DSYNC semantics.
     * @param seed seeds the completion delays and order of each session.
     */
    SimulatedBackend(final SimulatedDisk disk, final StorageOptions options, final long seed) {
        this.disk = disk;
        this.options = options;
        this.seeds = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return "simulated" + (options.directIo() ? "-direct" : "") + (options.dsync() ? "-dsync" : "");
    }

    @Override
    public StorageSession open(final Path directory, final Runnable completionSignal) throws IOException {
        if (!directory.toAbsolutePath().equals(disk.directory().toAbsolutePath())) {
            throw new IOException("the simulated disk of " + disk.directory() + " cannot open " + directory);
        }
        final long sessionSeed;
        synchronized (seeds) {
            sessionSeed = seeds.nextLong();
        }
        return new SimulatedSession(disk, options, new SplittableRandom(sessionSeed), completionSignal);
    }
}
