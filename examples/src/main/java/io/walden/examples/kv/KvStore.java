package io.walden.examples.kv;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.agrona.DirectBuffer;

/**
 * A tiny key-value store on a write-ahead log: every {@link #put} and {@link #delete} is appended to
 * the log with {@link Durability#SYNCED} before it is applied to the in-memory map, so a change that
 * returned survives a crash and power loss; {@link #open} replays the whole log to rebuild the map.
 *
 * <p>The log grows without bound: a real store would checkpoint its map now and then and call
 * {@link Wal#truncateBefore(long)} with the position the checkpoint covers.
 *
 * <p>Record encoding (little-endian): an operation byte ({@code 1} put, {@code 2} delete), the key's
 * length (int32) and its UTF-8 bytes, and for a put the value's length (int32) and its UTF-8 bytes.
 *
 * <p><b>Threading:</b> thread-safe; changes are serialized on the store, so that the log's order is
 * the order in which they are applied. A change holds the store while it waits for its sync, so
 * concurrent writers do not share syncs here: a store that wants group commit would append outside
 * the lock and apply changes in LSN order.
 */
public final class KvStore implements AutoCloseable {
    private static final byte PUT = 1;
    private static final byte DELETE = 2;

    private final Wal wal;
    private final Map<String, String> map;
    private final Durability acknowledgement;

    private KvStore(final Wal wal, final Map<String, String> map, final Durability acknowledgement) {
        this.wal = wal;
        this.map = map;
        this.acknowledgement = acknowledgement;
    }

    /**
     * Opens a store, creating it if the directory holds no log, and rebuilds its map from the log.
     *
     * @param config the log's configuration.
     * @return the open store.
     * @throws io.walden.WalException if the log cannot be opened or read.
     * @throws IllegalStateException if the log holds a record this store did not write.
     */
    public static KvStore open(final WalConfig config) {
        return open(config, Durability.SYNCED);
    }

    /**
     * Opens a deliberately broken store, for the crash test that shows the test kit catching it: it
     * applies and acknowledges a change once the change is written to the OS ({@link
     * Durability#WRITTEN}), before a sync makes it durable, so a power failure can lose a change that
     * returned. Never do this in a store that promises durability.
     *
     * @param config the log's configuration.
     * @return the open, broken store.
     */
    static KvStore openAcknowledgingWritten(final WalConfig config) {
        return open(config, Durability.WRITTEN);
    }

    private static KvStore open(final WalConfig config, final Durability acknowledgement) {
        final Wal wal = Wal.open(config);
        try {
            final Map<String, String> map = new HashMap<>();
            // Opening ran recovery, and everything it kept counts as durable: a default (SYNCED)
            // reader replays all of it.
            try (WalReader reader = wal.reader(wal.startPosition())) {
                reader.replay((buffer, offset, length, lsn) -> apply(map, buffer, offset, length, lsn));
            }
            return new KvStore(wal, map, acknowledgement);
        } catch (final RuntimeException ex) {
            wal.close();
            throw ex;
        }
    }

    /**
     * Sets a key's value: logged durably, then applied.
     *
     * @param key the key.
     * @param value the value.
     * @return the change's LSN.
     * @throws io.walden.WalException if the change could not be logged, or did not become durable; the
     *     map is then unchanged. With {@link io.walden.WalException#NO_LSN} the change is not in the
     *     log; with an LSN it is, its outcome unknown (the log failed, or the thread was interrupted
     *     while waiting for the sync), and a reopen shows whether it survived.
     */
    public synchronized long put(final String key, final String value) {
        Objects.requireNonNull(value, "value");
        final long lsn = wal.append(encode(PUT, key, value), acknowledgement);
        map.put(key, value);
        return lsn;
    }

    /**
     * Removes a key: logged durably, then applied. A key that is absent is logged all the same.
     *
     * @param key the key.
     * @return the change's LSN.
     * @throws io.walden.WalException if the change could not be logged, or did not become durable; the
     *     map is then unchanged. With {@link io.walden.WalException#NO_LSN} the change is not in the
     *     log; with an LSN it is, its outcome unknown (the log failed, or the thread was interrupted
     *     while waiting for the sync), and a reopen shows whether it survived.
     */
    public synchronized long delete(final String key) {
        final long lsn = wal.append(encode(DELETE, key, null), acknowledgement);
        map.remove(key);
        return lsn;
    }

    /**
     * A key's value.
     *
     * @param key the key.
     * @return the value, or null if the key is absent.
     */
    public synchronized String get(final String key) {
        return map.get(key);
    }

    /**
     * A copy of every key and value.
     *
     * @return the copy.
     */
    public synchronized Map<String, String> snapshot() {
        return Map.copyOf(map);
    }

    /** Closes the log; every change already returned is durable. Idempotent. */
    @Override
    public void close() {
        wal.close();
    }

    private static byte[] encode(final byte operation, final String key, final String value) {
        final byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        final byte[] valueBytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        final int length =
                1 + Integer.BYTES + keyBytes.length + (valueBytes == null ? 0 : Integer.BYTES + valueBytes.length);
        final ByteBuffer record = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        record.put(operation).putInt(keyBytes.length).put(keyBytes);
        if (valueBytes != null) {
            record.putInt(valueBytes.length).put(valueBytes);
        }
        return record.array();
    }

    private static void apply(
            final Map<String, String> map,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final long lsn) {
        final int end = offset + length;
        if (length < 1 + Integer.BYTES) {
            throw notAChange(lsn, length + " bytes");
        }
        final byte operation = buffer.getByte(offset);
        final int keyLength = buffer.getInt(offset + 1, ByteOrder.LITTLE_ENDIAN);
        final int keyStart = offset + 1 + Integer.BYTES;
        checkLength(keyLength, keyStart, end, lsn);
        final String key = buffer.getStringWithoutLengthUtf8(keyStart, keyLength);
        final int keyEnd = keyStart + keyLength;
        if (operation == PUT) {
            checkLength(Integer.BYTES, keyEnd, end, lsn);
            final int valueLength = buffer.getInt(keyEnd, ByteOrder.LITTLE_ENDIAN);
            final int valueStart = keyEnd + Integer.BYTES;
            checkLength(valueLength, valueStart, end, lsn);
            if (valueStart + valueLength != end) {
                throw notAChange(lsn, "bytes after the value");
            }
            map.put(key, buffer.getStringWithoutLengthUtf8(valueStart, valueLength));
        } else if (operation == DELETE) {
            if (keyEnd != end) {
                throw notAChange(lsn, "bytes after the key");
            }
            map.remove(key);
        } else {
            throw notAChange(lsn, "operation " + operation);
        }
    }

    private static void checkLength(final int length, final int start, final int end, final long lsn) {
        if (length < 0 || length > end - start) {
            throw notAChange(lsn, "a length of " + length + " with " + (end - start) + " bytes left");
        }
    }

    private static IllegalStateException notAChange(final long lsn, final String why) {
        return new IllegalStateException("the record at " + lsn + " is not a KvStore change: " + why);
    }
}
