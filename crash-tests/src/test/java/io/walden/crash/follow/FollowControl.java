package io.walden.crash.follow;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A small file, outside the log directory, that the test and its {@link FollowedWriter} child both map
 * (shared memory: a store is seen by the other process at once, in order):
 *
 * <pre>
 *   offset 0  confirmed position  test -> writer: every follower has read everything below it, so the
 *                                 writer may truncate the log before it (retention never outruns them)
 *   offset 8  quiet bound         writer -> test: -1, or while a quiet window is open, a position the
 *                                 writer's durable position cannot exceed (see FollowedWriter)
 * </pre>
 *
 * <p><b>Threading:</b> any thread; each slot is one aligned long read and written with volatile
 * semantics.
 */
final class FollowControl implements AutoCloseable {
    /** No quiet window is open. */
    static final long NO_QUIET_WINDOW = -1;

    private static final int CONFIRMED_OFFSET = 0;
    private static final int QUIET_BOUND_OFFSET = 8;
    private static final int LENGTH = 4096;

    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;

    private FollowControl(final MappedByteBuffer mapped) {
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
    }

    /**
     * Creates the file (test side): nothing confirmed, no quiet window.
     *
     * @param file the file; must not exist.
     * @return the mapped control.
     * @throws IOException if it cannot be created.
     */
    static FollowControl create(final Path file) throws IOException {
        final FollowControl control = map(file, StandardOpenOption.CREATE_NEW);
        control.publishConfirmed(0);
        control.publishQuietBound(NO_QUIET_WINDOW);
        return control;
    }

    /**
     * Maps the file the test created (writer side).
     *
     * @param file the file.
     * @return the mapped control.
     * @throws IOException if it cannot be mapped.
     */
    static FollowControl open(final Path file) throws IOException {
        return map(file);
    }

    private static FollowControl map(final Path file, final StandardOpenOption... extra) throws IOException {
        final StandardOpenOption[] options = new StandardOpenOption[extra.length + 2];
        options[0] = StandardOpenOption.READ;
        options[1] = StandardOpenOption.WRITE;
        System.arraycopy(extra, 0, options, 2, extra.length);
        try (FileChannel channel = FileChannel.open(file, options)) {
            return new FollowControl(channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH));
        }
    }

    /** @return the position below which every follower has read everything. */
    long confirmedPosition() {
        return buffer.getLongVolatile(CONFIRMED_OFFSET);
    }

    /** @param position the position below which every follower has read everything. */
    void publishConfirmed(final long position) {
        buffer.putLongVolatile(CONFIRMED_OFFSET, position);
    }

    /** @return the open quiet window's bound, or {@link #NO_QUIET_WINDOW}. */
    long quietBound() {
        return buffer.getLongVolatile(QUIET_BOUND_OFFSET);
    }

    /** @param bound the bound of the quiet window that opens, or {@link #NO_QUIET_WINDOW} as it closes. */
    void publishQuietBound(final long bound) {
        buffer.putLongVolatile(QUIET_BOUND_OFFSET, bound);
    }

    @Override
    public void close() {
        IoUtil.unmap(mapped);
    }
}
