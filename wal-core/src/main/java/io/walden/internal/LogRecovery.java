package io.walden.internal;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Opens a log directory: validates every segment header and every frame, cuts a torn tail, and
 * applies the {@link RecoveryPolicy} to anything else.
 *
 * <p>Decisions, in order:
 *
 * <ol>
 *   <li>Leftover {@code .wal.tmp} files are unfinished preparations: deleted, directory synced.
 *   <li>No segment: a new log with a new identity and a prepared first segment.
 *   <li>A segment with a bad header, the wrong size, another log's identity, or a gap before it:
 *       structural corruption.
 *   <li>Segments are scanned in order. The first one that does not end complete is the tail
 *       segment. If a later segment holds data, the damage is in the middle: corruption (the roll
 *       fence makes that impossible for a crash). Otherwise a zero length or a torn-looking bad
 *       frame ends the log there, and a bad frame with no sign of a torn write is corruption.
 *   <li>The torn tail is zeroed up to its last non-zero byte and synced, so no stale frame can be
 *       revived later; segments after the tail segment are deleted, except one empty prepared
 *       segment, which is kept as the next one.
 * </ol>
 *
 * <p><b>Threading:</b> runs on the opening thread, which owns the session until the I/O thread
 * starts.
 */
public final class LogRecovery {
    private static final System.Logger LOGGER = System.getLogger(LogRecovery.class.getName());

    private final WalConfig config;
    private final Path directory;
    private final StorageSession session;
    private final BlockingIo io;
    private final RecoveryPolicy policy;
    private final List<String> findings = new ArrayList<>();

    private long logId;
    private int capacityBytes;
    private long records;
    private long bytesScanned;
    private long droppedBytes;
    private long skippedBytes;
    private final SegmentScanner.LongList skippedRanges = new SegmentScanner.LongList();

    /**
     * Creates a recovery.
     *
     * @param config the configuration.
     * @param session the storage session.
     */
    public LogRecovery(final WalConfig config, final StorageSession session) {
        this.config = config;
        this.directory = config.directory();
        this.session = session;
        this.io = new BlockingIo(session);
        this.policy = config.recoveryPolicy();
    }

    /**
     * Runs recovery.
     *
     * @return the recovered state, with the active segment open.
     * @throws IOException on an I/O failure.
     * @throws WalCorruptionException on corruption the policy does not allow.
     */
    public RecoveredLog recover() throws IOException {
        final long startNs = System.nanoTime();
        final TreeMap<Long, Path> segments = listSegments();
        if (segments.isEmpty()) {
            return createNewLog(startNs);
        }
        readIdentity(segments);
        final List<Long> bases = validateStructure(segments);
        if (bases.isEmpty()) {
            // Positions are never reused: the log restarts after the highest segment it had.
            final long restart = (segments.lastKey() / capacityBytes + 1) * capacityBytes;
            findings.add("no valid segment left; the log restarts at position " + restart);
            return createLog(startNs, restart, false);
        }
        try (SegmentScanner scanner = new SegmentScanner(logId, maxFrameBytes())) {
            return scanSegments(scanner, segments, bases, startNs);
        }
    }

    private RecoveredLog scanSegments(
            final SegmentScanner scanner,
            final TreeMap<Long, Path> segments,
            final List<Long> bases,
            final long startNs)
            throws IOException {
        for (int i = 0; i < bases.size(); i++) {
            final long base = bases.get(i);
            final Path path = segments.get(base);
            final SegmentScanner.Result result = scanner.scan(path, base, capacityBytes, policy == RecoveryPolicy.SKIP);
            records += result.records();
            bytesScanned += result.endOffset() - SegmentHeaderDescriptor.HEADER_LENGTH;
            addSkipped(base, result.skippedRanges());
            if (result.end() == SegmentScanner.End.COMPLETE) {
                continue;
            }
            final int laterWithData = firstLaterSegmentWithData(segments, bases, i);
            final boolean corrupt =
                    laterWithData >= 0 || (result.end() == SegmentScanner.End.INVALID && !result.tornCompatible());
            if (corrupt) {
                final String reason = laterWithData >= 0
                        ? (result.problem() == null ? "the segment ends early (zeros)" : result.problem())
                                + " but the later segment "
                                + segments.get(bases.get(laterWithData)).getFileName()
                                + " holds data"
                        : result.problem() + ", and the damage does not look like a torn write";
                if (policy == RecoveryPolicy.FAIL) {
                    throw new WalCorruptionException(path, result.endOffset(), reason);
                }
                if (policy == RecoveryPolicy.SKIP && laterWithData >= 0) {
                    findings.add(
                            "skipped " + path.getFileName() + " from offset " + result.endOffset() + ": " + reason);
                    addSkipped(base, new long[] {result.endOffset(), capacityBytes});
                    continue;
                }
                if (policy == RecoveryPolicy.SKIP) {
                    // Nothing valid follows the bad frame: skipping it leaves the log ending there.
                    findings.add("skipped the corrupt end of " + path.getFileName() + " from offset "
                            + result.endOffset() + ": " + reason);
                    skippedBytes += capacityBytes - result.endOffset();
                    return finishAtTail(scanner, segments, bases, i, result.endOffset(), startNs);
                }
                findings.add("truncated at " + path.getFileName() + " offset " + result.endOffset() + ": " + reason);
                droppedBytes += (long) (bases.size() - i - 1) * capacityBytes + capacityBytes - result.endOffset();
            }
            return finishAtTail(scanner, segments, bases, i, result.endOffset(), startNs);
        }
        final long nextBase = bases.get(bases.size() - 1) + capacityBytes;
        return createLog(startNs, nextBase, false);
    }

    private RecoveredLog finishAtTail(
            final SegmentScanner scanner,
            final TreeMap<Long, Path> segments,
            final List<Long> bases,
            final int tailIndex,
            final long tailOffset,
            final long startNs)
            throws IOException {
        final long tailBase = bases.get(tailIndex);
        final Path tailPath = segments.get(tailBase);
        final long nonZeroEnd = scanner.nonZeroEnd(tailPath, tailOffset, capacityBytes);
        final int handle = session.openFile(tailPath, false);
        if (nonZeroEnd > tailOffset) {
            zeroRange(handle, tailPath, tailOffset, nonZeroEnd);
            findings.add("cut torn tail of " + tailPath.getFileName() + " at offset " + tailOffset + ": "
                    + (nonZeroEnd - tailOffset) + " byte(s) zeroed");
        }
        int nextHandle = -1;
        // Newest first, each delete synced on its own: a crash part way leaves an unbroken run of
        // segments (unsynced directory changes survive in any subset), never a gap.
        for (int j = bases.size() - 1; j > tailIndex; j--) {
            final Path path = segments.get(bases.get(j));
            if (j == tailIndex + 1 && isEmptyPrepared(path)) {
                nextHandle = session.openFile(path, false);
            } else {
                io.delete(path);
                io.syncDirectory();
            }
        }
        final RecoveryReport report = report(
                startNs,
                false,
                bases.get(0),
                tailBase + tailOffset,
                tailIndex + 1,
                nonZeroEnd > tailOffset ? tailPath : null,
                nonZeroEnd > tailOffset ? tailOffset : -1,
                nonZeroEnd - tailOffset);
        return new RecoveredLog(
                logId,
                capacityBytes,
                bases.get(0),
                tailBase,
                handle,
                nextHandle,
                tailBase + tailOffset,
                skippedRanges.toArray(),
                report);
    }

    private TreeMap<Long, Path> listSegments() throws IOException {
        final TreeMap<Long, Path> segments = new TreeMap<>();
        final List<Path> temporaries = new ArrayList<>();
        try (Stream<Path> entries = Files.list(directory)) {
            entries.forEach(path -> {
                final String name = path.getFileName().toString();
                if (name.endsWith(SegmentNames.TEMPORARY_SUFFIX)) {
                    temporaries.add(path);
                } else {
                    final long base = SegmentNames.parseSegmentName(name);
                    if (base >= 0) {
                        segments.put(base, path);
                    }
                }
            });
        }
        for (final Path temporary : temporaries) {
            io.delete(temporary);
            findings.add("deleted unfinished segment preparation " + temporary.getFileName());
        }
        // Always, not only after deletes: a segment renamed into place by a session that stopped
        // before it synced the directory (killed, or closed part way through a preparation) is in the
        // listing but not durable. Adopted and written into, it would vanish at a power loss with
        // every record synced into it since.
        io.syncDirectory();
        return segments;
    }

    private void readIdentity(final TreeMap<Long, Path> segments) throws IOException {
        // The log's identity is the one most valid headers carry (ties go to the oldest segment),
        // so that a single segment copied in from another log is the one reported.
        final Map<Long, Integer> votes = new java.util.HashMap<>();
        final Map<Long, Integer> capacities = new java.util.HashMap<>();
        for (final Map.Entry<Long, Path> entry : segments.entrySet()) {
            final ByteBuffer header = readHeader(entry.getValue());
            if (header != null && SegmentHeaders.validate(header, entry.getKey()) == null) {
                final long id = SegmentHeaders.logId(header);
                votes.merge(id, 1, Integer::sum);
                capacities.put(id, SegmentHeaders.capacity(header));
                if (votes.get(id) > votes.getOrDefault(logId, 0)) {
                    logId = id;
                }
            }
        }
        if (!votes.isEmpty()) {
            capacityBytes = capacities.get(logId);
            if (capacityBytes != config.segmentCapacityBytes()) {
                LOGGER.log(
                        System.Logger.Level.INFO,
                        "log in " + directory + " has segments of " + capacityBytes
                                + " bytes; the configured segmentCapacityBytes=" + config.segmentCapacityBytes()
                                + " applies to new logs only");
            }
            return;
        }
        final Map.Entry<Long, Path> first = segments.firstEntry();
        final ByteBuffer header = readHeader(first.getValue());
        final String problem = header == null
                ? "the file is shorter than a segment header"
                : SegmentHeaders.validate(header, first.getKey());
        if (policy != RecoveryPolicy.TRUNCATE) {
            throw new WalCorruptionException(first.getValue(), 0, "no segment has a valid header; first: " + problem);
        }
        logId = newLogId();
        capacityBytes = config.segmentCapacityBytes();
    }

    /** Returns the bases of the segments to scan, oldest first, after applying the policy. */
    private List<Long> validateStructure(final TreeMap<Long, Path> segments) throws IOException {
        final List<Long> bases = new ArrayList<>();
        long expectedBase = -1;
        for (final Map.Entry<Long, Path> entry : segments.entrySet()) {
            final long base = entry.getKey();
            final Path path = entry.getValue();
            final String problem = structuralProblem(path, base, expectedBase);
            if (problem != null) {
                if (policy != RecoveryPolicy.TRUNCATE) {
                    throw new WalCorruptionException(path, problem.startsWith("missing") ? -1 : 0, problem);
                }
                findings.add("truncated before " + path.getFileName() + ": " + problem);
                deleteFrom(segments, base);
                break;
            }
            bases.add(base);
            expectedBase = base + capacityBytes;
        }
        return bases;
    }

    private String structuralProblem(final Path path, final long base, final long expectedBase) throws IOException {
        if (expectedBase >= 0 && base != expectedBase) {
            return "missing segment(s) from position " + expectedBase + " to " + base + " (expected "
                    + SegmentNames.segmentName(expectedBase) + ")";
        }
        final long size = Files.size(path);
        if (size == 0) {
            return "zero-length segment file; Walden renames segments into place only once written and synced,"
                    + " so this file was not made by Walden or was damaged";
        }
        final ByteBuffer header = readHeader(path);
        if (header == null) {
            return "the file (" + size + " bytes) is shorter than a segment header";
        }
        final String headerProblem = SegmentHeaders.validate(header, base);
        if (headerProblem != null) {
            return headerProblem;
        }
        if (SegmentHeaders.logId(header) != logId) {
            return String.format(
                    "segment belongs to another log (log identity %016x, this log is %016x)",
                    SegmentHeaders.logId(header), logId);
        }
        if (SegmentHeaders.capacity(header) != capacityBytes) {
            return "segment capacity " + SegmentHeaders.capacity(header) + " differs from the log's " + capacityBytes;
        }
        if (size != capacityBytes) {
            return "file size " + size + " differs from the segment capacity " + capacityBytes;
        }
        return null;
    }

    /**
     * Deletes every segment from a base on, newest first, each delete synced on its own, so that a
     * crash part way leaves an unbroken run of segments rather than a gap.
     */
    private void deleteFrom(final TreeMap<Long, Path> segments, final long fromBase) throws IOException {
        for (final Path path : segments.tailMap(fromBase, true).descendingMap().values()) {
            droppedBytes += Files.size(path);
            io.delete(path);
            io.syncDirectory();
        }
    }

    private int firstLaterSegmentWithData(final TreeMap<Long, Path> segments, final List<Long> bases, final int index)
            throws IOException {
        for (int j = index + 1; j < bases.size(); j++) {
            if (!isEmptyPrepared(segments.get(bases.get(j)))) {
                return j;
            }
        }
        return -1;
    }

    /** Whether a segment's first frame slot is unwritten: the segment was prepared and never used. */
    private static boolean isEmptyPrepared(final Path path) throws IOException {
        final ByteBuffer slot = ByteBuffer.allocate(SegmentScanner.SECTOR_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.read(slot, SegmentHeaderDescriptor.HEADER_LENGTH);
        }
        for (int i = 0; i < slot.position(); i++) {
            if (slot.get(i) != 0) {
                return false;
            }
        }
        return true;
    }

    private void zeroRange(final int handle, final Path path, final long fromOffset, final long toOffset)
            throws IOException {
        final int blockBytes = 4096;
        final long alignedStart = fromOffset & ~(blockBytes - 1L);
        final long alignedEnd = Math.min(capacityBytes, (toOffset + blockBytes - 1) & ~(blockBytes - 1L));
        final int chunkBytes = WalConfig.PREPARE_CHUNK_BYTES;
        try (AlignedBuffer chunkMemory = new AlignedBuffer(chunkBytes);
                FileChannel reader = FileChannel.open(path, StandardOpenOption.READ)) {
            final ByteBuffer chunk = chunkMemory.buffer();
            for (long offset = alignedStart; offset < alignedEnd; offset += chunkBytes) {
                final int length = (int) Math.min(chunkBytes, alignedEnd - offset);
                chunk.clear().limit(length);
                if (offset < fromOffset) {
                    reader.read(chunk, offset);
                }
                for (int i = 0; i < length; i++) {
                    if (offset + i >= fromOffset) {
                        chunk.put(i, (byte) 0);
                    }
                }
                io.write(handle, offset, chunk, length);
            }
        }
        io.sync(handle);
    }

    private RecoveredLog createNewLog(final long startNs) throws IOException {
        logId = newLogId();
        capacityBytes = config.segmentCapacityBytes();
        return createLog(startNs, 0, true);
    }

    private RecoveredLog createLog(final long startNs, final long base, final boolean newLog) throws IOException {
        final int handle = prepareSegment(base);
        final long end = base + SegmentHeaderDescriptor.HEADER_LENGTH;
        final long first = newLog ? base : firstSegment(base);
        final RecoveryReport report =
                report(startNs, newLog, first, end, (int) ((base - first) / capacityBytes) + 1, null, -1, 0);
        return new RecoveredLog(logId, capacityBytes, first, base, handle, -1, end, skippedRanges.toArray(), report);
    }

    private long firstSegment(final long fallback) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.mapToLong(path ->
                            SegmentNames.parseSegmentName(path.getFileName().toString()))
                    .filter(base -> base >= 0)
                    .min()
                    .orElse(fallback);
        }
    }

    /** Prepares a segment synchronously, as {@link SegmentPreparer} does in the background. */
    private int prepareSegment(final long base) throws IOException {
        final Path temporary = directory.resolve(SegmentNames.temporaryName(base));
        try (AlignedBuffer headerMemory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH);
                AlignedBuffer zeroMemory = new AlignedBuffer(WalConfig.PREPARE_CHUNK_BYTES)) {
            final ByteBuffer header = headerMemory.buffer();
            final ByteBuffer zeros = zeroMemory.buffer();
            SegmentHeaders.write(header, capacityBytes, base, logId);
            final int handle = session.openFile(temporary, true);
            io.write(handle, 0, header, SegmentHeaderDescriptor.HEADER_LENGTH);
            for (long offset = SegmentHeaderDescriptor.HEADER_LENGTH; offset < capacityBytes; ) {
                final int length = (int) Math.min(WalConfig.PREPARE_CHUNK_BYTES, capacityBytes - offset);
                io.write(handle, offset, zeros, length);
                offset += length;
            }
            io.sync(handle);
            io.rename(temporary, SegmentNames.segmentPath(directory, base));
            io.syncDirectory();
            return handle;
        }
    }

    private static ByteBuffer readHeader(final Path path) throws IOException {
        final ByteBuffer header =
                ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            while (header.hasRemaining()) {
                if (channel.read(header, header.position()) < 0) {
                    return null;
                }
            }
        }
        return header;
    }

    private void addSkipped(final long base, final long[] ranges) {
        for (int k = 0; k < ranges.length; k += 2) {
            skippedRanges.add(base + ranges[k]);
            skippedRanges.add(base + ranges[k + 1]);
            skippedBytes += ranges[k + 1] - ranges[k];
            findings.add(
                    "skipped corrupt bytes at positions [" + (base + ranges[k]) + ", " + (base + ranges[k + 1]) + ")");
        }
    }

    private int maxFrameBytes() {
        return FrameDescriptor.frameLength(config.maxRecordBytes());
    }

    private RecoveryReport report(
            final long startNs,
            final boolean newLog,
            final long startPosition,
            final long endPosition,
            final int segmentCount,
            final Path tornFile,
            final long tornOffset,
            final long tornBytes) {
        return new RecoveryReport(
                newLog,
                logId,
                capacityBytes,
                segmentCount,
                records,
                bytesScanned,
                startPosition,
                endPosition,
                tornFile,
                tornOffset,
                tornBytes,
                droppedBytes,
                skippedBytes,
                List.copyOf(findings),
                System.nanoTime() - startNs);
    }

    private static long newLogId() {
        long id;
        do {
            id = new SecureRandom().nextLong();
        } while (id == 0);
        return id;
    }
}
