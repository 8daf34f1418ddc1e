package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Closing gives up once space is short and nothing was written for the wait; a flicker restarts nothing. */
class CloseSpaceWaitTest {
    private static final long WAIT_NS = 2_000;

    @Test
    void shouldGiveUpOnceNothingWasWrittenForTheWaitWhileSpaceIsShort() {
        final CloseSpaceWait wait = new CloseSpaceWait(WAIT_NS);
        assertFalse(wait.giveUp(0, 100, true), "the first round starts the wait");
        assertFalse(wait.giveUp(1_999, 100, true));
        assertTrue(wait.giveUp(2_000, 100, true));
    }

    @Test
    void shouldNotRestartTheWaitWhenTheShortageClearsForAMoment() {
        final CloseSpaceWait wait = new CloseSpaceWait(WAIT_NS);
        assertFalse(wait.giveUp(0, 100, true));
        assertFalse(wait.giveUp(1_000, 100, false), "space looked free for a moment: no give-up then");
        assertTrue(wait.giveUp(2_000, 100, true), "nothing was written since the wait began");
    }

    @Test
    void shouldRestartTheWaitWhenTheWrittenPositionMoves() {
        final CloseSpaceWait wait = new CloseSpaceWait(WAIT_NS);
        assertFalse(wait.giveUp(0, 100, true));
        assertFalse(wait.giveUp(1_500, 200, true), "a write landed");
        assertFalse(wait.giveUp(3_000, 200, true));
        assertTrue(wait.giveUp(3_500, 200, true));
    }

    @Test
    void shouldNeverGiveUpWithoutAShortage() {
        final CloseSpaceWait wait = new CloseSpaceWait(WAIT_NS);
        assertFalse(wait.giveUp(0, 100, false));
        assertFalse(wait.giveUp(1_000_000, 100, false));
    }
}
