package io.walden.internal.codec;

import io.walden.WalException;
import io.walden.codec.Compression;
import io.walden.codec.RecordCodec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The codecs a log can read, by id: those found with {@link ServiceLoader} (the {@code wal-codecs}
 * module registers its own), then those the application configured, which take an id's place.
 *
 * <p><b>Threading:</b> immutable.
 */
public final class CodecTable {
    private static final int SLOTS = RecordCodec.ID_MAX + 1;
    private static volatile CodecTable discovered;

    private final RecordCodec[] codecs;

    private CodecTable(final RecordCodec[] codecs) {
        this.codecs = codecs;
    }

    /**
     * The codecs found on the class or module path, loaded once per process.
     */
    public static CodecTable discovered() {
        CodecTable table = discovered;
        if (table == null) {
            final RecordCodec[] found = new RecordCodec[SLOTS];
            for (final RecordCodec codec : ServiceLoader.load(RecordCodec.class, CodecTable.class.getClassLoader())) {
                checkId(codec);
                if (found[codec.id()] == null) {
                    found[codec.id()] = codec;
                }
            }
            table = new CodecTable(found);
            discovered = table;
        }
        return table;
    }

    /**
     * This table with the given codecs in their ids' places.
     */
    public CodecTable with(final List<RecordCodec> configured) {
        if (configured.isEmpty()) {
            return this;
        }
        final RecordCodec[] merged = codecs.clone();
        for (final RecordCodec codec : configured) {
            checkId(codec);
            merged[codec.id()] = codec;
        }
        return new CodecTable(merged);
    }

    /**
     */
    public RecordCodec codec(final int id) {
        return codecs[id];
    }

    /**
     * The codecs a log's readers can decode: those on the class path, and the one it compresses with.
     */
    public static CodecTable readable(final Compression compression) {
        return compression == null ? discovered() : discovered().with(List.of(compression.codec()));
    }

    /** The codecs in the table, by id, for messages and statistics. */
    public List<RecordCodec> codecs() {
        final List<RecordCodec> list = new ArrayList<>();
        for (final RecordCodec codec : codecs) {
            if (codec != null) {
                list.add(codec);
            }
        }
        return list;
    }

    /**
     * The refusal of a frame whose codec this log lacks.
     */
    public static WalException missing(final int id, final long lsn, final Path file) {
        return new WalException(
                WalException.ErrorCode.FORMAT,
                "the record at LSN " + lsn + " in " + file + " is stored with codec " + id + " ("
                        + RecordCodec.knownName(id) + "), which this reader lacks: put io.walden:wal-codecs on the"
                        + " class path (it registers lz4 and zstd), register the codec with ServiceLoader, or pass it to"
                        + " Wal.openReadOnly(directory, codecs...)");
    }

    private static void checkId(final RecordCodec codec) {
        if (codec == null) {
            throw new WalException(WalException.ErrorCode.CONFIG, "a codec is null; pass codec instances");
        }
        if (codec.id() < 1 || codec.id() > RecordCodec.ID_MAX) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "codec " + codec.name() + " (" + codec.getClass().getName() + ") has id " + codec.id()
                            + "; a codec id is from 1 to " + RecordCodec.ID_MAX);
        }
    }
}
