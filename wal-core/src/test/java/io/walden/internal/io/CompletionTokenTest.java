package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The token's bit layout: the kind in bits 56 to 63, a write's tail part in bit 0, every other bit zero. */
class CompletionTokenTest {
    private static final List<Long> KINDS = List.of(
            CompletionToken.WRITE,
            CompletionToken.SYNC,
            CompletionToken.PREPARE,
            CompletionToken.TRUNCATE,
            CompletionToken.MARK);

    @Test
    void shouldPutTheKindInTheTopByteAndNothingElse() {
        for (final long kind : KINDS) {
            final long token = CompletionToken.of(kind);
            assertEquals(kind << 56, token);
            assertEquals(0, token & ((1L << 56) - 1), "bits below the kind");
            assertEquals(kind, CompletionToken.kind(token));
            assertFalse(CompletionToken.isWriteTail(token));
        }
    }

    @Test
    void shouldGiveEachKindItsOwnNonZeroValue() {
        final Set<Long> tokens = new HashSet<>();
        for (final long kind : KINDS) {
            assertTrue(kind > 0 && kind < 256, "a kind fits the top byte and is not 0, the blocking operations' token");
            assertTrue(tokens.add(CompletionToken.of(kind)));
        }
    }

    @Test
    void shouldMarkTheTailPartOfAWriteInBitZeroWithoutChangingItsKind() {
        final long tail = CompletionToken.of(CompletionToken.WRITE) | CompletionToken.WRITE_TAIL;
        assertEquals(1, CompletionToken.WRITE_TAIL);
        assertTrue(CompletionToken.isWriteTail(tail));
        assertEquals(CompletionToken.WRITE, CompletionToken.kind(tail));
    }

    @Test
    void shouldReadTheKindOfATokenWithTheTopBitSetAsUnsigned() {
        assertEquals(0xFF, CompletionToken.kind(CompletionToken.of(0xFF)));
        assertTrue(CompletionToken.of(0xFF) < 0);
    }
}
