package io.walden.internal.state;

import static io.walden.internal.state.ProcessorScarcity.SCARCE_WAKE_LATENCY_NS;
import static io.walden.internal.state.ProcessorScarcity.SMOOTHING;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The scarcity rule over its edges, and the average it reads: one late wake does not flip it. */
class ProcessorScarcityTest {
    @Test
    void shouldCountProcessorsScarceFromTheThresholdOn() {
        assertFalse(ProcessorScarcity.scarce(0));
        assertFalse(ProcessorScarcity.scarce(SCARCE_WAKE_LATENCY_NS - 1));
        assertTrue(ProcessorScarcity.scarce(SCARCE_WAKE_LATENCY_NS));
        assertTrue(ProcessorScarcity.scarce(Long.MAX_VALUE / 2));
    }

    @Test
    void shouldTurnScarceOnTwoLateWakesInARowButNotOnOne() {
        long averageNs = 20_000;
        averageNs = ProcessorScarcity.smoothed(averageNs, 1_000_000);
        assertFalse(ProcessorScarcity.scarce(averageNs), "one late wake among prompt ones: " + averageNs);
        averageNs = ProcessorScarcity.smoothed(averageNs, 1_000_000);
        assertTrue(ProcessorScarcity.scarce(averageNs), "two wakes a millisecond late: " + averageNs);
    }

    @Test
    void shouldTurnBackAfterALongBusySpellOnlyOverSeveralPromptWakes() {
        long averageNs = 1_000_000;
        int promptWakes = 0;
        while (ProcessorScarcity.scarce(averageNs)) {
            averageNs = ProcessorScarcity.smoothed(averageNs, 20_000);
            promptWakes++;
        }
        assertTrue(promptWakes > SMOOTHING && promptWakes < 2 * SMOOTHING, promptWakes + " prompt wakes");
    }

    @Test
    void shouldConvergeToASteadyLatency() {
        long averageNs = 0;
        for (int i = 0; i < 20 * SMOOTHING; i++) {
            averageNs = ProcessorScarcity.smoothed(averageNs, 300_000);
        }
        assertTrue(Math.abs(averageNs - 300_000) <= SMOOTHING, "average " + averageNs);
    }
}
