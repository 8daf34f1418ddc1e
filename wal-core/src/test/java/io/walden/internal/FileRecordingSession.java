package io.walden.internal;

import io.walden.internal.segment.BlockingIo;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A storage session for unit tests that does each operation at once on real files, through a {@code
 * FileChannel}, and records it as a line ({@code "write 0.wal 4096+8192"}, {@code "sync 0.wal"},
 * {@code "rename a b"}, ...), so that a test can pin the order of writes and syncs that a crash-safety
 * argument rests on. Completions wait for {@link #poll}, one operation at a time, as {@link BlockingIo}
 * expects.
 *
 * <p>Public for the tests of {@code io.walden.internal.io}, which wrap it where they deliver completions
 * themselves.
 *
 * <p><b>Threading:</b> one thread.
 */
public final class FileRecordingSession implements StorageSession {
    private static final StorageCapabilities CAPABILITIES = StorageCapabilities.of(false, false, 4096, 1);

    /** The operations, in the order they were submitted. */
    public final List<String> operations = new ArrayList<>();

    private final Map<Integer, FileChannel> channels = new HashMap<>();
    private final Map<Integer, Path> paths = new HashMap<>();
    private final ArrayDeque<long[]> completions = new ArrayDeque<>();
    private final ArrayDeque<IOException> failures = new ArrayDeque<>();
    private int nextHandle = 1;
    private boolean allocates;
    private long failWritesFromOffset = -1;
    private IOException writeFailure;

    /** A session with no file open and nothing recorded. */
    public FileRecordingSession() {}

    /**
     * Makes every write at or past a file offset fail, as a full file system fails it.
     *
     * @param fileOffset the first offset that fails.
     * @param failure what the write fails with.
     */
    public void failWritesFrom(final long fileOffset, final IOException failure) {
        failWritesFromOffset = fileOffset;
        writeFailure = failure;
    }

    /** Makes {@link #submitAllocate} succeed (it completes with 0, "cannot", by default). */
    public void allocates() {
        allocates = true;
    }

    /** @return the operations of one kind (the first word of each line), in order. */
    public List<String> operations(final String kind) {
        final List<String> selected = new ArrayList<>();
        for (final String operation : operations) {
            if (operation.startsWith(kind + " ")) {
                selected.add(operation);
            }
        }
        return selected;
    }

    /** Buffered writes, made durable by syncs, one operation in flight; 4 KiB blocks. */
    @Override
    public StorageCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public int openFile(final Path path, final boolean create) throws IOException {
        final int handle = nextHandle++;
        channels.put(
                handle,
                create
                        ? FileChannel.open(
                                path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)
                        : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE));
        paths.put(handle, path);
        operations.add("open " + path.getFileName());
        return handle;
    }

    @Override
    public void closeFile(final int fileHandle) throws IOException {
        operations.add("close " + paths.remove(fileHandle).getFileName());
        channels.remove(fileHandle).close();
    }

    @Override
    public void submitWrite(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        operations.add("write " + paths.get(fileHandle).getFileName() + " " + fileOffset + "+" + lengthBytes);
        if (failWritesFromOffset >= 0 && fileOffset >= failWritesFromOffset) {
            fail(token, writeFailure);
            return;
        }
        final ByteBuffer bytes = source.duplicate();
        bytes.clear().position(sourceOffset).limit(sourceOffset + lengthBytes);
        try {
            long written = 0;
            while (bytes.hasRemaining()) {
                written += channels.get(fileHandle).write(bytes, fileOffset + written);
            }
            complete(token, written);
        } catch (final IOException ex) {
            fail(token, ex);
        }
    }

    @Override
    public void submitAllocate(final int fileHandle, final long fileOffset, final long lengthBytes, final long token) {
        operations.add("allocate " + paths.get(fileHandle).getFileName() + " " + fileOffset + "+" + lengthBytes);
        if (!allocates) {
            complete(token, 0);
            return;
        }
        try {
            final FileChannel channel = channels.get(fileHandle);
            if (channel.size() < fileOffset + lengthBytes) {
                channel.write(ByteBuffer.allocate(1), fileOffset + lengthBytes - 1);
            }
            complete(token, lengthBytes);
        } catch (final IOException ex) {
            fail(token, ex);
        }
    }

    @Override
    public void submitSync(final int fileHandle, final long token) {
        operations.add("sync " + paths.get(fileHandle).getFileName());
        complete(token, 0);
    }

    @Override
    public void submitSyncDirectory(final long token) {
        operations.add("sync-directory");
        complete(token, 0);
    }

    @Override
    public void submitRename(final Path source, final Path target, final long token) {
        operations.add("rename " + source.getFileName() + " " + target.getFileName());
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
            complete(token, 0);
        } catch (final IOException ex) {
            fail(token, ex);
        }
    }

    @Override
    public void submitDelete(final Path path, final long token) {
        operations.add("delete " + path.getFileName());
        try {
            Files.delete(path);
            complete(token, 0);
        } catch (final IOException ex) {
            fail(token, ex);
        }
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        int delivered = 0;
        while (delivered < limit && !completions.isEmpty()) {
            final long[] completion = completions.poll();
            handler.onCompletion(completion[0], completion[1], completion[2] == 0 ? null : failures.poll());
            delivered++;
        }
        return delivered;
    }

    @Override
    public int inFlight() {
        return completions.size();
    }

    @Override
    public void close() {
        for (final FileChannel channel : channels.values()) {
            try {
                channel.close();
            } catch (final IOException ignored) {
                // A test's file; nothing to keep.
            }
        }
    }

    private void complete(final long token, final long result) {
        completions.add(new long[] {token, result, 0});
    }

    private void fail(final long token, final IOException failure) {
        failures.add(failure);
        completions.add(new long[] {token, -1, 1});
    }
}
