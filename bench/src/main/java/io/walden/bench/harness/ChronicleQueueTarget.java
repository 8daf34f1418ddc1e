package io.walden.bench.harness;

import java.nio.file.Path;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

/**
 * Chronicle Queue, the Java journal people pick for speed, with default options: each writer thread
 * creates its own appender and writes its record with {@code writeBytes}. Nothing is synced: the
 * record is in a memory-mapped file, in the page cache, when the call returns, which survives a
 * process crash but not power loss ({@code WRITTEN}).
 *
 * <p>On Java 17 Chronicle needs {@code --add-opens}/{@code --add-exports} flags; the harness starts
 * every scenario JVM with them ({@link ChildJvm#CHRONICLE_FLAGS}).
 *
 * <p><b>Threading:</b> as {@link Target}; each appender belongs to the thread that created it.
 */
final class ChronicleQueueTarget implements Target {
    private final ChronicleQueue queue;
    private final int recordBytes;

    ChronicleQueueTarget(final Path directory, final int recordBytes) {
        this.queue = SingleChronicleQueueBuilder.binary(directory).build();
        this.recordBytes = recordBytes;
    }

    @Override
    public Appender appender(final int writerIndex) {
        final ExcerptAppender appender = queue.createAppender();
        final BytesStore<?, ?> payload = BytesStore.nativeStoreFrom(Payloads.array(recordBytes, writerIndex));
        return () -> appender.writeBytes(payload);
    }

    @Override
    public long syncs() {
        return 0;
    }

    @Override
    public void close() {
        queue.close();
    }
}
