package io.walden.crash.fault;

import io.walden.crash.CrashBudget;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The fault test matrix of a backend family, and the seed of a run.
 *
 * <p><b>Threading:</b> stateless.
 */
final class FaultCases {
    /** System property that fixes the seed, to replay a run. */
    static final String SEED_PROPERTY = "crash.fault.seed";

    /** Share of the soak time for all injected-fault cases together. */
    private static final double SOAK_SHARE = 0.1;
    /** Cases over both families: every kind, buffered and O_DIRECT. */
    private static final int CASE_COUNT = 2 * 2 * FaultKind.values().length;

    private FaultCases() {}

    /**
     * Every fault kind, buffered and with O_DIRECT.
     *
     * @param family {@code nio} or {@code uring}.
     * @return (backend name, fault kind) pairs.
     */
    static Stream<Arguments> arguments(final String family) {
        return Stream.of(family, family + "-direct")
                .flatMap(name -> Arrays.stream(FaultKind.values()).map(kind -> Arguments.of(name, kind)));
    }

    /**
     * Runs one case of the matrix once, or under soak again and again with fresh seeds until its share of
     * the deadline.
     *
     * @param backendName the real backend.
     * @param kind the fault.
     * @throws Exception as {@link FaultCase#run()}.
     */
    static void run(final String backendName, final FaultKind kind) throws Exception {
        final long deadlineNs = CrashBudget.soakDeadlineNanos(SOAK_SHARE / CASE_COUNT);
        do {
            new FaultCase(backendName, kind, Path.of("target", "fault", backendName + "-" + kind), seed()).run();
        } while (CrashBudget.soak() && System.nanoTime() - deadlineNs < 0);
    }

    /**
     * The seed of a case: fixed by {@value #SEED_PROPERTY}, else fresh and printed.
     *
     * @return the seed.
     */
    static long seed() {
        final String fixed = System.getProperty(SEED_PROPERTY);
        final long seed = fixed != null ? Long.parseLong(fixed) : System.nanoTime();
        System.out.println("fault case seed " + seed + " (-D" + SEED_PROPERTY + "=" + seed + " replays)");
        return seed;
    }
}
