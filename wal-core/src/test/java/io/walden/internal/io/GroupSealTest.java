package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The seal decision over every combination of its inputs: only direct I/O, only a group that ends
 * inside a block, and only under load (a write in flight, or more than one waiter since the last
 * write), so that a lone writer never pays for padding.
 */
class GroupSealTest {
    private static final int BLOCK = 4096;

    @Test
    void shouldSealExactlyTheGroupsOfALoadedDirectLogThatEndInsideABlock() {
        for (final int blockSizeBytes : new int[] {0, BLOCK}) {
            for (final long groupEnd : new long[] {BLOCK, BLOCK + 8, 2L * BLOCK - 8, 3L * BLOCK}) {
                for (final boolean writeInFlight : new boolean[] {false, true}) {
                    for (final long requests : new long[] {0, 1, 2, 16}) {
                        final boolean expected =
                                blockSizeBytes > 0 && groupEnd % BLOCK != 0 && (writeInFlight || requests >= 2);
                        assertEquals(
                                expected,
                                GroupSeal.shouldSeal(blockSizeBytes, groupEnd, writeInFlight, requests),
                                "block " + blockSizeBytes + " end " + groupEnd + " in flight " + writeInFlight
                                        + " requests " + requests);
                    }
                }
            }
        }
    }
}
