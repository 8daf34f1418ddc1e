package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.agrona.BitUtil;

/**
 * What a log directory holds, before any frame is read: its segment files (leftover temporary files
 * of unfinished preparations and writes deleted, on an open), the log's identity and segment capacity
 * (from the headers), and whether the segments form an unbroken run of valid headers.
 *
 * <p><b>Threading:</b> the opening thread.
 */
final class SegmentInventory {
    private static final System.Logger LOGGER = System.getLogger(SegmentInventory.class.getName());

    record Identity(long logId, int capacityBytes) {}

    /** Bases that passed the structural checks, oldest first; where TRUNCATE discards from, or -1. */
    record Structure(List<Long> bases, long discardFromBase) {}

    private final WalConfig config;
    private final Path directory;
    private final BlockingIo io;
    private final RecoveryTally tally;
    private final List<Path> temporaries = new ArrayList<>();

    SegmentInventory(final WalConfig config, final BlockingIo io, final RecoveryTally tally) {
        this.config = config;
        this.directory = config.directory();
        this.io = io;
        this.tally = tally;
    }

    /** Lists the segment files; notes the temporary ones for {@link #removeTemporaries}. */
    TreeMap<Long, Path> list() throws IOException {
        final TreeMap<Long, Path> segments = new TreeMap<>();
        temporaries.clear();
        try (Stream<Path> entries = Files.list(directory)) {
            entries.forEach(path -> {
                final String name = path.getFileName().toString();
                if (name.endsWith(SegmentNames.TEMPORARY_SUFFIX)
                        || name.equals(SuffixTruncationDescriptor.TEMPORARY_NAME)) {
                    temporaries.add(path);
                } else {
                    final long base = SegmentNames.parseSegmentName(name);
                    if (base >= 0) {
                        segments.put(base, path);
                    }
                }
            });
        }
        if (io == null) {
            for (final Path temporary : temporaries) {
                tally.finding("unfinished " + (isSegmentTemporary(temporary) ? "segment preparation " : "write of ")
                        + temporary.getFileName() + " (an open deletes it)");
            }
        }
        return segments;
    }

    /** What {@link #removeTemporaries} frees: each temporary file rounded up to a 4 KiB block. */
    long temporaryBytes() throws IOException {
        long bytes = 0;
        for (final Path temporary : temporaries) {
            bytes += BitUtil.align(Files.size(temporary), SegmentHeaderDescriptor.HEADER_LENGTH);
        }
        return bytes;
    }

    /** Deletes the temporary files the last {@link #list} found; syncs the directory. */
    void removeTemporaries() throws IOException {
        for (final Path temporary : temporaries) {
            io.delete(temporary);
            tally.finding("deleted unfinished "
                    + (isSegmentTemporary(temporary) ? "segment preparation " : "write of ")
                    + temporary.getFileName());
        }
        // Always, not only after deletes: a segment renamed into place by a session that stopped
        // before it synced the directory (killed, or closed part way through a preparation) is in the
        // listing but not durable. Adopted and written into, it would vanish at a power loss with
        // every record synced into it since.
        io.syncDirectory();
    }

    /** Refuses ({@code FORMAT}) another format version, under every policy, before anything changes. */
    void refuseOtherFormats(final TreeMap<Long, Path> segments) throws IOException {
        for (final Path path : segments.values()) {
            final ByteBuffer header = FileReads.readHeader(path);
            final int version = header == null ? -1 : SegmentHeaderDecoder.formatVersion(header);
            if (version >= 0 && version != SegmentHeaderDescriptor.FORMAT_VERSION) {
                throw new WalException(
                        WalException.ErrorCode.FORMAT,
                        "cannot open the log in " + directory + ": segment " + path.getFileName() + " holds "
                                + SegmentHeaderDecoder.formatVersionProblem(version) + ". Nothing was changed.");
            }
        }
    }

    /**
     * Finds the log's identity: the one most valid headers carry (ties go to the oldest segment),
     * so that a single segment copied in from another log is the one reported.
     */
    Identity readIdentity(final TreeMap<Long, Path> segments, final LongSupplier newLogId) throws IOException {
        final Map<Long, Integer> votes = new HashMap<>();
        final Map<Long, Integer> capacities = new HashMap<>();
        long logId = 0;
        for (final Map.Entry<Long, Path> entry : segments.entrySet()) {
            final ByteBuffer header = FileReads.readHeader(entry.getValue());
            if (header != null && SegmentHeaderDecoder.validate(header, entry.getKey()) == null) {
                final long id = SegmentHeaderDecoder.logId(header);
                votes.merge(id, 1, Integer::sum);
                capacities.put(id, SegmentHeaderDecoder.capacity(header));
                if (votes.get(id) > votes.getOrDefault(logId, 0)) {
                    logId = id;
                }
            }
        }
        if (!votes.isEmpty()) {
            final int capacityBytes = capacities.get(logId);
            if (capacityBytes != config.segmentCapacityBytes()) {
                LOGGER.log(
                        System.Logger.Level.INFO,
                        "log in " + directory + " has segments of " + capacityBytes
                                + " bytes; the configured segmentCapacityBytes=" + config.segmentCapacityBytes()
                                + " applies to new logs only");
            }
            return new Identity(logId, capacityBytes);
        }
        final Map.Entry<Long, Path> first = segments.firstEntry();
        final ByteBuffer header = FileReads.readHeader(first.getValue());
        final String problem = header == null
                ? "the file is shorter than a segment header"
                : SegmentHeaderDecoder.validate(header, first.getKey());
        if (config.recoveryPolicy() != RecoveryPolicy.TRUNCATE) {
            throw new WalCorruptionException(first.getValue(), 0, "no segment has a valid header; first: " + problem);
        }
        return new Identity(newLogId.getAsLong(), config.segmentCapacityBytes());
    }

    Structure validate(final TreeMap<Long, Path> segments, final Identity identity) throws IOException {
        final List<Long> bases = new ArrayList<>();
        long expectedBase = -1;
        for (final Map.Entry<Long, Path> entry : segments.entrySet()) {
            final long base = entry.getKey();
            final Path path = entry.getValue();
            final String problem = structuralProblem(path, base, expectedBase, identity);
            if (problem != null) {
                if (config.recoveryPolicy() != RecoveryPolicy.TRUNCATE) {
                    throw new WalCorruptionException(path, expectedBase >= 0 && base != expectedBase ? -1 : 0, problem);
                }
                tally.finding("truncated before " + path.getFileName() + ": " + problem);
                return new Structure(bases, expectedBase >= 0 ? expectedBase : base);
            }
            bases.add(base);
            expectedBase = base + identity.capacityBytes();
        }
        return new Structure(bases, -1);
    }

    /**
     * Refuses a log whose newest segment records that the log went on into the next one, which is
     * missing (lost with records that may have been acknowledged). No policy applies: continuing
     * would give positions out again. Runs before recovery changes anything.
     */
    void refuseLostSuccessor(final TreeMap<Long, Path> segments) throws IOException {
        if (segments.isEmpty()) {
            return;
        }
        final long base = segments.lastKey();
        final Path newest = segments.get(base);
        final ByteBuffer header = FileReads.readHeader(newest);
        if (header == null
                || SegmentHeaderDecoder.validate(header, base) != null
                || !SegmentHeaderDecoder.continued(header)) {
            return;
        }
        final long missing = base + SegmentHeaderDecoder.capacity(header);
        final Path successor = SegmentNames.segmentPath(config.directory(), missing);
        // Looked up again, not in the listing: a log being inspected while it is written may have
        // renamed its next segment into place since the directory was listed.
        if (Files.exists(successor)) {
            return;
        }
        throw new WalCorruptionException(
                newest,
                SegmentHeaderDescriptor.FLAGS_OFFSET,
                "lost segment(s): the header of " + newest.getFileName() + " records that the log went on into"
                        + " segment " + successor.getFileName() + ", which is missing, so positions from " + missing
                        + " on, which may hold acknowledged records, are gone (the newest segment file(s) were"
                        + " deleted or lost)",
                "Restore the missing segment file(s) from a replica or backup. No recovery policy opens a log"
                        + " whose end is lost: it would give those positions to other records; nothing was changed.");
    }

    private static String structuralProblem(
            final Path path, final long base, final long expectedBase, final Identity identity) throws IOException {
        if (expectedBase >= 0 && base != expectedBase) {
            return "missing segment(s) from position " + expectedBase + " to " + base + " (expected "
                    + SegmentNames.segmentName(expectedBase) + ")";
        }
        final long size = Files.size(path);
        if (size == 0) {
            return "zero-length segment file; Walden renames segments into place only once written and synced,"
                    + " so this file was not made by Walden or was damaged";
        }
        final ByteBuffer header = FileReads.readHeader(path);
        if (header == null) {
            return "the file (" + size + " bytes) is shorter than a segment header";
        }
        final String headerProblem = SegmentHeaderDecoder.validate(header, base);
        if (headerProblem != null) {
            return headerProblem;
        }
        if (SegmentHeaderDecoder.logId(header) != identity.logId()) {
            return String.format(
                    "segment belongs to another log (log identity %016x, this log is %016x)",
                    SegmentHeaderDecoder.logId(header), identity.logId());
        }
        if (SegmentHeaderDecoder.capacity(header) != identity.capacityBytes()) {
            return "segment capacity " + SegmentHeaderDecoder.capacity(header) + " differs from the log's "
                    + identity.capacityBytes();
        }
        if (size != identity.capacityBytes()) {
            return "file size " + size + " differs from the segment capacity " + identity.capacityBytes();
        }
        return null;
    }

    private static boolean isSegmentTemporary(final Path path) {
        return path.getFileName().toString().endsWith(SegmentNames.TEMPORARY_SUFFIX);
    }
}
