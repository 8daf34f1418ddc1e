package io.walden.uring.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@link SubmitterExit} over every errno Linux defines (1 to 133), success results, and both submitter states. */
class SubmitterExitTest {
    private static final int ECANCELED = 125;
    private static final int EFAULT = 14;

    @Test
    void shouldResubmitOnlyACancelledOrFaultedOperationWhoseSubmitterEnded() {
        for (int result = -133; result <= 4096; result++) {
            for (final boolean alive : new boolean[] {true, false}) {
                final boolean expected = !alive && (result == -ECANCELED || result == -EFAULT);
                assertEquals(expected, SubmitterExit.resubmit(result, alive), "result " + result + " alive " + alive);
            }
        }
    }
}
