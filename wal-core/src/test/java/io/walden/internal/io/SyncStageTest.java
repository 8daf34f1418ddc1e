package io.walden.internal.io;

import static io.walden.internal.io.IoPath.HEADER;
import static io.walden.internal.io.IoPath.segmentName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.internal.state.ProcessorScarcity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync stage against a session whose completions the test delivers: a sync covers only what was
 * written when it was submitted, one sync is in flight at a time, durable writes (O_DSYNC) are their
 * own syncs, and a sync clears a durability mark's unsynced state only if it was submitted after the
 * mark was written.
 */
class SyncStageTest {
    private static final long WRITE = CompletionToken.WRITE;
    private static final long SYNC = CompletionToken.SYNC;
    private static final long MARK = CompletionToken.MARK;
    private static final String SYNC_FIRST = "sync " + segmentName(0);

    @TempDir
    Path directory;

    @Test
    void shouldNeverCoverAWriteThatCompletedAfterTheSyncWasSubmitted() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long endA = path.appendPage();
            path.run();
            path.requestSync(endA);
            final long endB = path.appendPage();
            session.deliver(WRITE);
            path.run();
            // One round: A's completion, B's write, then the sync, whose target is A's end.
            assertEquals(List.of(write(HEADER, 4096), write(endA, 4096), SYNC_FIRST), session.operations());

            session.deliver(WRITE);
            path.run();
            assertEquals(endB, path.positions.written());
            assertEquals(endB, path.state.writtenPosition());

            session.deliver(SYNC);
            path.run();
            assertEquals(endA, path.positions.durable(), "B completed after the sync was submitted");
            assertEquals(endA, path.state.durablePosition());
            assertEquals(endA - HEADER, path.positions.durableRecords() * 4096);

            path.requestSync(endB);
            path.run();
            session.deliver(SYNC);
            path.run();
            assertEquals(endB, path.state.durablePosition());
        }
    }

    @Test
    void shouldKeepOneSyncInFlightAndSubmitTheNextInTheRoundItCompletes() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE);
        try (IoPath path = new IoPath(directory, session)) {
            final long endA = path.appendPage();
            path.run();
            path.requestSync(endA);
            path.run();
            assertEquals(1, session.operations("sync").size());
            for (int i = 0; i < 3; i++) {
                path.requestSync(path.appendPage());
                path.run(IoRound.Kind.IO_THREAD, 2);
                path.run(IoRound.Kind.CALLER);
            }
            assertEquals(1, session.operations("sync").size(), "a second sync while one is in flight");
            assertTrue(path.round.reached(endA + 3 * 4096, false));
            assertFalse(path.round.reached(endA, true));

            session.deliver(SYNC);
            path.run();
            assertEquals(endA, path.positions.durable());
            assertEquals(2, session.operations("sync").size(), "the next sync, in the round the last completed");
            session.deliver(SYNC);
            path.run();
            assertEquals(endA + 3 * 4096, path.positions.durable());
            assertEquals(endA + 3 * 4096, path.state.durablePosition());
        }
    }

    @Test
    void shouldSyncOnlyWhenAskedOrDue() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.appendPage();
            path.run(IoRound.Kind.IO_THREAD, 3);
            assertEquals(end, path.positions.written());
            assertEquals(List.of(), session.operations("sync"), "nobody asked, nothing due");
            path.requestSync(end);
            path.run();
            assertEquals(List.of(SYNC_FIRST), session.operations("sync"));
            assertEquals(1, session.syncsOnCaller(), "a lone waiter with nothing else to write");
        }
    }

    @Test
    void shouldRunAGroupsSyncOnTheDutyHolderOnlyWhileProcessorsAreScarce() throws IOException {
        for (final boolean scarce : new boolean[] {false, true}) {
            final HeldCompletionSession session = new HeldCompletionSession().autoDeliver(WRITE);
            try (IoPath path = new IoPath(Files.createDirectories(directory.resolve("scarce-" + scarce)), session)) {
                for (int i = 0; scarce && i < 64; i++) {
                    path.state.recordWakeLatency(ProcessorScarcity.SCARCE_WAKE_LATENCY_NS * 2);
                }
                assertEquals(scarce, path.state.processorsScarce());
                final long end = path.appendPage();
                path.run(IoRound.Kind.IO_THREAD, 2);
                // Two waiters: a group, never a lone writer's sync.
                path.requestSync(end);
                path.requestSync(end);
                path.run();
                assertEquals(1, session.operations("sync").size());
                assertEquals(scarce ? 1 : 0, session.syncsOnCaller(), "scarce " + scarce);
            }
        }
    }

    @Test
    void shouldTakeADurableWriteForItsSyncAndPublishItAtOnce() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession().writesDurable(true);
        try (IoPath path = new IoPath(directory, session)) {
            final long end = path.appendPage();
            path.requestSync(end);
            path.run();
            assertEquals(0, path.round.syncs.maybeSync(path.nowNs, true, false), "no sync with durable writes");
            assertEquals(HEADER, path.state.durablePosition());
            session.deliver(WRITE);
            path.run();
            assertEquals(end, path.positions.durable());
            assertEquals(end, path.state.durablePosition());
            assertEquals(1, path.positions.durableRecords());
            assertEquals(List.of(write(HEADER, 4096)), session.operations());
            assertFalse(path.round.syncs.takeWakePending(), "durable writes wake as they publish");
        }
    }

    @Test
    void shouldLeaveAMarkWrittenWhileTheSyncWasInFlightAwaitingItsOwnSync() throws IOException {
        final HeldCompletionSession session = new HeldCompletionSession();
        try (IoPath path = new IoPath(directory, session)) {
            final long start = path.nowNs;
            final long endA = path.appendPage();
            path.run();
            path.requestSync(endA);
            final long endB = path.appendPage();
            session.deliver(WRITE);
            path.run();
            session.deliver(WRITE);
            session.deliver(SYNC);
            path.run();
            assertEquals(endA, path.positions.durable());
            assertEquals(endB, path.positions.written());

            // A sync of B, submitted before any mark was written.
            path.requestSync(endB);
            path.run();
            assertTrue(path.round.syncs.inFlight());
            assertFalse(path.round.marker.awaitsSync());

            // Idle with A durable and no frame proving it: the mark is written while the sync runs.
            path.nowNs = System.nanoTime() + DurabilityMarker.MARK_IDLE_NS;
            path.run();
            assertEquals(1, session.heldCount(MARK), session.operations().toString());
            session.deliver(MARK);
            path.run();
            assertTrue(path.round.marker.awaitsSync());

            session.deliver(SYNC);
            path.run();
            assertEquals(endB, path.positions.durable());
            assertTrue(
                    path.round.marker.awaitsSync(),
                    "a sync submitted before the mark was written does not make it durable");
            assertTrue(path.nowNs - start < 1_000_000_000L, "no background sync was due meanwhile");
        }
    }

    private static String write(final long position, final int length) {
        return "write " + segmentName(0) + " " + position + "+" + length;
    }
}
