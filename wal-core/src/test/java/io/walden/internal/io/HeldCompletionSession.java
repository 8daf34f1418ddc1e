package io.walden.internal.io;

import io.walden.internal.FileRecordingSession;
import io.walden.spi.CompletionHandler;
import io.walden.spi.ForwardingStorageSession;
import io.walden.spi.StorageCapabilities;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A storage session for the I/O path's unit tests whose completions the test delivers: each
 * operation is done at once on real files and recorded as a line by a {@link FileRecordingSession}
 * underneath ({@code "write 0.wal 4096+8192"}, {@code "sync 0.wal"}), but its completion is held until
 * the test {@link #deliver delivers} it, optionally with another result or a failure, and then reaches
 * the next {@link #poll}. Completions of the kinds passed to {@link #autoDeliver} are due at once.
 * Direct I/O and durable writes are switched on before the path is built.
 *
 * <p><b>Threading:</b> one thread.
 */
final class HeldCompletionSession extends ForwardingStorageSession {
    /** A completion the session holds or has due. */
    record Completion(long token, long result, IOException failure) {
        long kind() {
            return CompletionToken.kind(token);
        }
    }

    /** The session underneath, which does and records the operations. */
    final FileRecordingSession files;

    private final List<Completion> held = new ArrayList<>();
    private final ArrayDeque<Completion> due = new ArrayDeque<>();
    private final Set<Long> autoDeliveredKinds = new HashSet<>();
    private boolean directIo;
    private boolean writesDurable;
    private int syncsOnCaller;
    private int writesOnCaller;

    HeldCompletionSession() {
        this(new FileRecordingSession());
    }

    private HeldCompletionSession(final FileRecordingSession files) {
        super(files);
        this.files = files;
    }

    /** Reports direct I/O (4 KiB blocks); the files are still written through the page cache. */
    HeldCompletionSession directIo(final boolean directIo) {
        this.directIo = directIo;
        return this;
    }

    /** Reports durable writes (O_DSYNC): a write's completion is the data's sync. */
    HeldCompletionSession writesDurable(final boolean writesDurable) {
        this.writesDurable = writesDurable;
        return this;
    }

    /** Makes completions of these kinds ({@link CompletionToken}) due as soon as they complete. */
    HeldCompletionSession autoDeliver(final long... kinds) {
        for (final long kind : kinds) {
            autoDeliveredKinds.add(kind);
        }
        return this;
    }

    /** @return the operations done so far, in order, as {@link FileRecordingSession} records them. */
    List<String> operations() {
        return files.operations;
    }

    /** @return the operations of one kind (the first word of each line), in order. */
    List<String> operations(final String kind) {
        return files.operations(kind);
    }

    /** @return how many held completions there are of a kind. */
    int heldCount(final long kind) {
        collect();
        int count = 0;
        for (final Completion completion : held) {
            if (completion.kind() == kind) {
                count++;
            }
        }
        return count;
    }

    /** @return the tokens of the held completions of a kind, in completion order. */
    List<Long> heldTokens(final long kind) {
        collect();
        final List<Long> tokens = new ArrayList<>();
        for (final Completion completion : held) {
            if (completion.kind() == kind) {
                tokens.add(completion.token());
            }
        }
        return tokens;
    }

    /** Makes the oldest held completion of a kind due, as the operation completed. */
    void deliver(final long kind) {
        final Completion completion = take(kind);
        due.add(completion);
    }

    /** Makes the oldest held completion of a kind due with another result (a short write, say). */
    void deliverWithResult(final long kind, final long result) {
        final Completion completion = take(kind);
        due.add(new Completion(completion.token(), result, null));
    }

    /** Makes the oldest held completion of a kind due as a failure. */
    void deliverFailure(final long kind, final IOException failure) {
        final Completion completion = take(kind);
        due.add(new Completion(completion.token(), -1, failure));
    }

    /** Makes the newest held completion of a kind due: operations complete in any order. */
    void deliverNewest(final long kind) {
        due.add(takeNewest(kind));
    }

    /** Makes the newest held completion of a kind due as a failure. */
    void deliverNewestFailure(final long kind, final IOException failure) {
        final Completion completion = takeNewest(kind);
        due.add(new Completion(completion.token(), -1, failure));
    }

    /** Makes every held completion due, in completion order. */
    void deliverAll() {
        collect();
        due.addAll(held);
        held.clear();
    }

    /** @return how many writes (or last parts of writes) were submitted to run on the caller's thread. */
    int writesOnCaller() {
        return writesOnCaller;
    }

    /** @return how many syncs were submitted to run on the caller's thread. */
    int syncsOnCaller() {
        return syncsOnCaller;
    }

    private Completion take(final long kind) {
        collect();
        final Iterator<Completion> iterator = held.iterator();
        while (iterator.hasNext()) {
            final Completion completion = iterator.next();
            if (completion.kind() == kind) {
                iterator.remove();
                return completion;
            }
        }
        throw new AssertionError("no completion of kind " + kind + " is held; operations: " + files.operations);
    }

    private Completion takeNewest(final long kind) {
        collect();
        for (int i = held.size() - 1; i >= 0; i--) {
            if (held.get(i).kind() == kind) {
                return held.remove(i);
            }
        }
        throw new AssertionError("no completion of kind " + kind + " is held; operations: " + files.operations);
    }

    // Moves what the session underneath completed into the held or due completions.
    private void collect() {
        delegate()
                .poll(
                        (token, result, failure) -> {
                            final Completion completion = new Completion(token, result, failure);
                            if (autoDeliveredKinds.contains(completion.kind())) {
                                due.add(completion);
                            } else {
                                held.add(completion);
                            }
                        },
                        Integer.MAX_VALUE);
    }

    /**
     * The recording session's, with direct I/O and durable writes as set; completions come in any
     * order the test delivers them, so many writes may overlap.
     */
    @Override
    public StorageCapabilities capabilities() {
        final StorageCapabilities recorded = files.capabilities();
        return StorageCapabilities.of(directIo, writesDurable, recorded.blockSizeBytes(), recorded.maxInFlight())
                .withOverlappingWritesMax(64);
    }

    @Override
    public void submitWriteOnCaller(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        writesOnCaller++;
        submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
    }

    @Override
    public void submitSyncOnCaller(final int fileHandle, final long token) {
        syncsOnCaller++;
        delegate().submitSync(fileHandle, token);
    }

    @Override
    public int poll(final CompletionHandler handler, final int limit) {
        collect();
        int delivered = 0;
        while (delivered < limit && !due.isEmpty()) {
            final Completion completion = due.poll();
            handler.onCompletion(completion.token(), completion.result(), completion.failure());
            delivered++;
        }
        return delivered;
    }

    @Override
    public int inFlight() {
        collect();
        return held.size() + due.size();
    }
}
