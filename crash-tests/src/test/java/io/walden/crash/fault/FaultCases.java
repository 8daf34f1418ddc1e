package io.walden.crash.fault;

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
