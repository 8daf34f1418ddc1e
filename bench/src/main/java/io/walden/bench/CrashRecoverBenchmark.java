package io.walden.bench;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.testkit.AckLedger;
import io.walden.testkit.CrashState;
import io.walden.testkit.DiskHistory;
import io.walden.testkit.SimulatedStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The test kit's crash-and-recover cycle, what every crash state of a crash test costs: from the
 * history of a 1 MiB log ({@value #LOG_BYTES} bytes of 4 KiB records, one in eight {@code SYNCED},
 * the power cut with a written tail unsynced), build a post-crash directory with fresh random
 * survival choices ({@link DiskHistory#crash}), open a log on it (recovery, on a new {@link
 * SimulatedStorage} that records it), read every record back, close. One operation is one crash
 * state. {@code point=end} crashes after the whole history (the full 1 MiB log); {@code
 * point=sweep} after random prefixes of it in ascending order, about {@value #SWEEP_POINTS} per sweep,
 * as the power-loss suite visits the crash points of a workload (the history's model then advances
 * from one point to the next, and is rebuilt once per sweep).
 *
 * <p>The files go to {@code /dev/shm} when it exists, as the crash suites' do (or under {@code
 * -Dwalden.bench.dir}).
 *
 * <pre>
 *   java -jar bench/target/walden-bench.jar jmh CrashRecoverBenchmark
 * </pre>
 *
 * <p><b>Threading:</b> one benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 3, timeUnit = TimeUnit.SECONDS)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Dwalden.checks=false"})
@Threads(1)
public class CrashRecoverBenchmark {
    private static final int LOG_BYTES = 1024 * 1024;
    private static final int RECORD_BYTES = 4000;
    private static final Path SHARED_MEMORY = Path.of("/dev/shm");
    private static final int SWEEP_POINTS = 45;

    /** Where the power fails: after the whole history, or after ascending random prefixes of it. */
    @Param({"end", "sweep"})
    public String point;

    private Path root;
    private Path target;
    private DiskHistory history;
    private SplittableRandom random;
    private int sweepPoint;

    /** Runs the workload once and keeps its history. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        root = System.getProperty(BenchFiles.BASE_DIR_PROP_NAME) == null && Files.isWritable(SHARED_MEMORY)
                ? Files.createTempDirectory(SHARED_MEMORY, "walden-jmh-crash-")
                : BenchFiles.freshDirectory("walden-jmh-crash-");
        final SimulatedStorage storage =
                SimulatedStorage.builder(root.resolve("log")).seed(1).build();
        final byte[] payload = new byte[RECORD_BYTES];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 31 + 7);
        }
        try (Wal wal = Wal.open(storage.configBuilder().build())) {
            for (int i = 0; wal.tailPosition() < LOG_BYTES; i++) {
                wal.append(payload, i % 8 == 7 ? Durability.SYNCED : Durability.WRITTEN);
            }
            storage.powerOff();
        } catch (final RuntimeException ex) {
            // Closing a log whose power failed fails; the history is what the benchmark needs.
        }
        history = storage.history();
        target = Files.createDirectory(root.resolve("state"));
        random = new SplittableRandom(2);
    }

    /** Deletes the files. */
    @TearDown(Level.Trial)
    public void tearDown() {
        BenchFiles.deleteRecursively(root);
    }

    /** The next point of the sweep: a random step further, or a new sweep from the start. */
    private int nextSweepPoint() {
        sweepPoint += 1 + random.nextInt(2 * history.size() / SWEEP_POINTS);
        if (sweepPoint > history.size()) {
            sweepPoint = random.nextInt(history.size() / SWEEP_POINTS);
        }
        return sweepPoint;
    }

    /**
     * One crash state: built, recovered, read back, closed.
     *
     * @return how many records survived, so nothing is optimised away.
     */
    @Benchmark
    public int crashAndRecover() {
        try {
            BenchFiles.deleteRecursively(target);
            Files.createDirectory(target);
            final int eventCount = "end".equals(point) ? history.size() : nextSweepPoint();
            final CrashState state = history.crash(eventCount, random, target);
            try (Wal wal =
                    Wal.open(state.newStorage(random.nextLong()).configBuilder().build())) {
                return AckLedger.readAll(wal).size();
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
