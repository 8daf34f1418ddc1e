package io.walden.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalException;
import io.walden.internal.state.NoSpace;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngineHolderTest {
    @TempDir
    Path tempDir;

    @Test
    void shouldRefuseCallsOnceClosedAndReleaseTheDirectory() {
        final Path directory = tempDir.resolve("log");
        final EngineFixture fixture = new EngineFixture(directory);
        final EngineHolder holder = fixture.holder;
        holder.checkOpen();
        assertFalse(holder.isClosed());

        holder.close();
        holder.close();

        assertTrue(holder.isClosed());
        final WalException refused = assertThrows(WalException.class, holder::checkOpen);
        assertEquals(WalException.ErrorCode.CLOSED, refused.errorCode());
        assertEquals("the log in " + directory + " is closed", refused.getMessage());
        DirectoryLock.acquire(directory).close();
    }

    @Test
    void shouldNameTheFailureOfAFailedLog() {
        final Path directory = tempDir.resolve("log");
        try (EngineFixture fixture = new EngineFixture(directory)) {
            final IOException cause = new IOException("the disk went away");
            fixture.state().fail(cause);

            final WalException refused = assertThrows(WalException.class, fixture.holder::checkOpen);

            assertEquals(WalException.ErrorCode.CLOSED, refused.errorCode());
            assertEquals(
                    "the log in " + directory + " failed and accepts nothing more: the disk went away. Close it and"
                            + " reopen it to recover.",
                    refused.getMessage());
            assertSame(cause, refused.getCause());
        }
    }

    @Test
    void shouldGiveAdviceWhenTheFileSystemIsFull() {
        final Path directory = tempDir.resolve("log");
        try (EngineFixture fixture = new EngineFixture(directory)) {
            fixture.state().fail(new IOException("No space left on device"));

            assertEquals(
                    "the log in " + directory + " failed and accepts nothing more: No space left on device. "
                            + NoSpace.ADVICE + ".",
                    fixture.holder.closedException().getMessage());
        }
    }

    @Test
    void shouldTellAReplacedEngineFromAClosedLog() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final EngineHolder holder = fixture.holder;
            final LogEngine first = holder.engine();

            final LogEngine stopped = fixture.replaceEngine();

            assertSame(first, stopped);
            assertNotSame(first, holder.engine());
            assertTrue(holder.replacedAfter(first), "an appender on the stopped engine claims again");
            assertFalse(holder.replacedAfter(holder.engine()));
            holder.close();
            assertFalse(holder.replacedAfter(first), "a closed log is not replaced, whatever its engine");
        }
    }

    @Test
    void shouldNotTakeAReplacedEngineAsReplacedOnceTheLogFailed() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final LogEngine first = fixture.replaceEngine();
            fixture.state().fail(new IOException("failed"));

            assertFalse(fixture.holder.replacedAfter(first));
        }
    }

    @Test
    void shouldRefuseAReplacementWithoutTheCloseLock() {
        try (EngineFixture fixture = new EngineFixture(tempDir.resolve("log"))) {
            final LogEngine current = fixture.holder.engine();

            assertThrows(IllegalStateException.class, () -> fixture.holder.replace(current));
            assertSame(current, fixture.holder.engine());
        }
    }

    @Test
    void shouldEndWaitsAtTheClosedTailOnlyOnceClosed() {
        final EngineFixture fixture = new EngineFixture(tempDir.resolve("log"));
        final EngineHolder holder = fixture.holder;
        final LogEngine engine = holder.engine();
        assertEquals(Long.MAX_VALUE, holder.finalPosition(engine));
        final LogEngine replaced = fixture.replaceEngine();
        assertEquals(Long.MAX_VALUE, holder.finalPosition(replaced), "the log goes on after a replaced engine's tail");

        holder.close();

        assertEquals(holder.engine().logBuffer().tailPosition(), holder.finalPosition(holder.engine()));
    }

    @Test
    void shouldCloseAStoppedLogWithItsFailure() {
        final Path directory = tempDir.resolve("log");
        final EngineFixture fixture = new EngineFixture(directory);
        final EngineHolder holder = fixture.holder;
        final WalException failure = new WalException(WalException.ErrorCode.IO, "truncation failed");

        synchronized (holder.closeLock()) {
            holder.engine().stop(true);
            holder.closeStopped(failure);
        }

        assertTrue(holder.isClosed());
        assertTrue(holder.state().isClosed());
        assertSame(failure, holder.state().failure());
        assertSame(failure, holder.closedException().getCause());
        holder.close();
        DirectoryLock.acquire(directory).close();
    }
}
