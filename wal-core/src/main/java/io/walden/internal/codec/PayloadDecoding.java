package io.walden.internal.codec;

import io.walden.WalCorruptionException;
import io.walden.codec.RecordCodec;
import java.nio.file.Path;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reader's decoding of stored payloads: a decoder per codec id, made when the reader first meets
 * the id, and one buffer the decoded record is handed out from (grown, cold, to the largest record
 * met, at most {@code maxRecordBytes}).
 *
 * <pre>
 *   frame (codec id k) ──► table.codec(k)? no: refused, naming the codec
 *                      ──► decoder k: decodedLength (from the encoding's own header) ──► decode whole
 *                      ──► the record, from {@link #buffer()}
 * </pre>
 *
 * <p>A stored payload that does not decode (its checksum matched, so it was written so) is corruption,
 * named with its codec; so is one that announces a length past the log's largest record.
 *
 * <p><b>Threading:</b> owned by the reader's thread.
 */
public final class PayloadDecoding implements AutoCloseable {
    private final CodecTable table;
    private final int maxRecordBytes;
    private final RecordCodec.Decoder[] decoders = new RecordCodec.Decoder[RecordCodec.ID_MAX + 1];
    private final ScratchBuffer decoded;
    private final UnsafeBuffer source = new UnsafeBuffer(0, 0);

    /**
     */
    public PayloadDecoding(final CodecTable table, final int maxRecordBytes) {
        this.table = table;
        this.maxRecordBytes = maxRecordBytes;
        this.decoded = new ScratchBuffer(maxRecordBytes);
    }

    /**
     * Decodes a stored payload into {@link #buffer()}.
     */
    public int decode(
            final int codecId,
            final DirectBuffer buffer,
            final int offset,
            final int length,
            final long lsn,
            final Path file,
            final long fileOffset) {
        final RecordCodec.Decoder decoder = decoder(codecId, lsn, file);
        source.wrap(buffer, offset, length);
        final int decodedLength = decoder.decodedLength(source, 0, length);
        if (decodedLength < 0 || decodedLength > maxRecordBytes) {
            throw undecodable(
                    codecId,
                    lsn,
                    file,
                    fileOffset,
                    decodedLength < 0
                            ? "its encoding announces no length"
                            : "it announces " + decodedLength + " bytes, more than the largest record (maxRecordBytes="
                                    + maxRecordBytes + ")");
        }
        final UnsafeBuffer target = decoded.ensure(Math.max(1, decodedLength));
        final int produced;
        try {
            produced = decoder.decode(source, 0, length, target, 0, decodedLength);
        } catch (final RuntimeException ex) {
            throw undecodable(codecId, lsn, file, fileOffset, String.valueOf(ex.getMessage()));
        }
        if (produced != decodedLength) {
            throw undecodable(
                    codecId,
                    lsn,
                    file,
                    fileOffset,
                    "it gave " + produced + " bytes where it announced " + decodedLength);
        }
        return produced;
    }

    /** The buffer the last decoded record is in, from index 0. */
    public DirectBuffer buffer() {
        return decoded.ensure(1);
    }

    @Override
    public void close() {
        for (int id = 0; id < decoders.length; id++) {
            if (decoders[id] != null) {
                decoders[id].close();
                decoders[id] = null;
            }
        }
        decoded.close();
    }

    private RecordCodec.Decoder decoder(final int codecId, final long lsn, final Path file) {
        RecordCodec.Decoder decoder = decoders[codecId];
        if (decoder == null) {
            final RecordCodec codec = table.codec(codecId);
            if (codec == null) {
                throw CodecTable.missing(codecId, lsn, file);
            }
            decoder = codec.newDecoder();
            decoders[codecId] = decoder;
        }
        return decoder;
    }

    private WalCorruptionException undecodable(
            final int codecId, final long lsn, final Path file, final long fileOffset, final String why) {
        final RecordCodec codec = table.codec(codecId);
        return new WalCorruptionException(
                file,
                fileOffset,
                "the record at LSN " + lsn + " does not decode with codec " + codecId + " ("
                        + (codec == null ? RecordCodec.knownName(codecId) : codec.name()) + "): " + why
                        + "; its checksum matched, so it was stored so",
                "Read it with the codec that wrote it (the same id must read the same format), or restore"
                        + " the log from a replica");
    }
}
