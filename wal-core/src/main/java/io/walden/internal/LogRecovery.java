package io.walden.internal;

import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.agrona.collections.LongArrayList;

/**
 * Opens a log directory: validates every segment header and every frame, decides with {@link
 * RecoveryRule} what the end of the log is, cuts a torn tail, and applies the {@link RecoveryPolicy}
 * to corruption.
 *
 * <p>Decisions, in order:
 *
 * <ol>
 *   <li>Leftover {@code .wal.tmp} files are unfinished preparations: deleted, directory synced.
 *   <li>No segment: a new log with a new identity and a prepared first segment.
 *   <li>A segment with a bad header, the wrong size, another log's identity, or a gap before it:
 *       structural corruption.
 *   <li>Segments are scanned in order, each to its end, looking past invalid frames for valid ones.
 *       The first one that valid frames do not fill is the tail segment, and {@link RecoveryRule}
 *       judges its end from ground truth: the clean close its header records, the durable offsets
 *       its valid frames carry, and whether a later segment holds data.
 *   <li>After a clean close the log continues where it ended; the clean-close record is cleared
 *       (and synced) first, so that a later crash is never mistaken for a clean close.
 *   <li>Otherwise (a crash) the log never continues in the tail segment: what lies after its valid
 *       frames is copied into the evidence directory, zeroed and synced, the rest of the segment is
 *       covered by a discard frame, and the log continues in the next segment. No position a reader
 *       may have seen before the crash is given to another record.
 *   <li>Discarding under {@link RecoveryPolicy#TRUNCATE} does the same from the damage on; later
 *       segments are moved whole into the evidence directory and replaced by segments that hold one
 *       discard frame, so that positions stay unique and segments contiguous.
 * </ol>
 *
 * <p>Evidence is made durable (file, directory) before the log is changed, and every change is synced
 * before the next one depends on it, so a crash during recovery leaves a state that the same rules
 * recover again.
 *
 * <p><b>Threading:</b> runs on the opening thread, which owns the session until the I/O thread
 * starts.
 */
public final class LogRecovery {
    private static final System.Logger LOGGER = System.getLogger(LogRecovery.class.getName());
    private static final int BLOCK_BYTES = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final DateTimeFormatter EVIDENCE_STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final WalConfig config;
    private final Path directory;
    private final StorageSession session;
    private final BlockingIo io;
    private final RecoveryPolicy policy;
    private final List<String> findings = new ArrayList<>();
    private final List<Path> evidence = new ArrayList<>();
    private final String evidenceStamp = EVIDENCE_STAMP.format(Instant.now());

    private long logId;
    private int capacityBytes;
    private long records;
    private long bytesScanned;
    private long droppedBytes;
    private long skippedBytes;
    private final LongArrayList skippedRanges = new LongArrayList();
    // What the newest segment told about the log's end, for the report.
    private boolean closedCleanly;
    private long recoveredEndPosition = -1;
    private long provenDurablePosition = -1;
    private Path tornTailFile;
    private long tornTailOffset = -1;
    private long tornTailBytesCut;
    private long tornTailRecordsCut;

    /**
     * Creates a recovery.
     *
     * @param config the configuration.
     * @param session the storage session; null only for a read-only inspection.
     */
    public LogRecovery(final WalConfig config, final StorageSession session) {
        this.config = config;
        this.directory = config.directory();
        this.session = session;
        this.io = session == null ? null : new BlockingIo(session);
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
            logId = newLogId();
            capacityBytes = config.segmentCapacityBytes();
            return createLog(startNs, 0, 0, true);
        }
        readIdentity(segments);
        final SuffixTruncationRecord pendingTruncation = readSuffixTruncation();
        if (pendingTruncation != null) {
            completeSuffixTruncation(segments, pendingTruncation, -1);
            // The log is now exactly what the truncation makes of it; recover it as it stands.
            return recover();
        }
        final Structure structure = validateStructure(segments);
        final List<Long> bases = structure.bases();
        if (bases.isEmpty()) {
            // Positions are never reused: the log restarts after the highest segment it had.
            final long restart = (segments.lastKey() / capacityBytes + 1) * capacityBytes;
            for (final Path path : segments.values()) {
                droppedBytes += Files.size(path);
                moveToEvidence(path);
            }
            findings.add("no valid segment left; every segment file was moved into " + evidenceDirectory()
                    + " and the log restarts at position " + restart);
            return createLog(startNs, restart, restart, false);
        }
        try (SegmentScanner scanner = new SegmentScanner(logId, maxFrameBytes())) {
            final Decision decision = scanSegments(scanner, segments, structure);
            if (decision.tailIndex() >= 0) {
                return finish(
                        scanner, segments, bases, decision.tailIndex(), decision.result(), decision.tail(), startNs);
            }
            // Every segment is full of valid frames: the log continues in a new segment after them.
            final long lastBase = bases.get(bases.size() - 1);
            final long lastEnd = lastBase + capacityBytes;
            closedCleanly = clearCleanClose(segments, lastBase, lastEnd);
            if (structure.discardFromBase() >= 0) {
                return createLog(
                        startNs, discardSegments(scanner, segments, structure.discardFromBase()), bases.get(0), false);
            }
            return createLog(startNs, lastEnd, bases.get(0), false);
        }
    }

    /**
     * Completes the suffix truncation whose record {@code truncateAfter} on an open log just wrote,
     * and returns the log to continue at the first frame of the segment at {@code continueBase},
     * without scanning it: the caller stopped the log there, so every position it gave out lies
     * below that base, every record is durable, and the segment at the base, if any, is one the log
     * prepared and never wrote. A missing one is prepared now, without its zero-fill (as a hurried
     * preparation): milliseconds rather than a write of the whole capacity, at the price of syncs
     * that may also commit extent metadata until the log rolls past it.
     *
     * @param firstSegmentBase the base of the log's oldest segment.
     * @param endPosition where the log's last record ends: nothing after it was ever written.
     * @param continueBase where the log continues: the record's continue position.
     * @param openSkippedRanges the skipped ranges the log was opened with (SKIP policy); those after
     *     the cut are dropped.
     * @return the log, its active segment open at {@code continueBase}.
     * @throws IOException on an I/O failure.
     * @throws WalCorruptionException if the record is gone or the kept records are damaged.
     */
    public RecoveredLog completeTruncationAndContinue(
            final long firstSegmentBase,
            final long endPosition,
            final long continueBase,
            final long[] openSkippedRanges)
            throws IOException {
        final long startNs = System.nanoTime();
        final TreeMap<Long, Path> segments = listSegments();
        readIdentity(segments);
        final SuffixTruncationRecord record = readSuffixTruncation();
        final Path recordPath = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        if (record == null || record.continuePosition() != continueBase) {
            throw new WalCorruptionException(
                    recordPath,
                    SuffixTruncationDescriptor.CONTINUE_POSITION_OFFSET,
                    "the suffix-truncation record written a moment ago is "
                            + (record == null ? "gone" : "for continue position " + record.continuePosition())
                            + ", not for " + continueBase);
        }
        completeSuffixTruncation(segments, record, endPosition);
        for (int i = 0; i < openSkippedRanges.length; i += 2) {
            if (openSkippedRanges[i + 1] <= record.cutPosition()) {
                addSkipped(0, openSkippedRanges[i], openSkippedRanges[i + 1], "skipped when the log was opened");
            }
        }
        final Path path = SegmentNames.segmentPath(directory, continueBase);
        final ByteBuffer header = Files.exists(path) ? readHeader(path) : null;
        final boolean prepared = header != null
                && SegmentHeaders.validate(header, continueBase) == null
                && SegmentHeaders.logId(header) == logId
                && SegmentHeaders.cleanEndPosition(header) < 0;
        if (!prepared && header != null) {
            io.delete(path);
            io.syncDirectory();
        }
        final int handle = prepared ? session.openFile(path, false) : prepareSegmentHurried(continueBase);
        final long end = continueBase + SegmentHeaderDescriptor.HEADER_LENGTH;
        recoveredEndPosition = end;
        provenDurablePosition = end;
        final RecoveryReport report = report(
                startNs, false, firstSegmentBase, end, (int) ((continueBase - firstSegmentBase) / capacityBytes) + 1);
        return new RecoveredLog(
                logId,
                capacityBytes,
                firstSegmentBase,
                continueBase,
                handle,
                -1,
                end,
                skippedRanges.toLongArray(),
                report);
    }

    /**
     * Inspects a log directory without changing anything: the same validation and the same rule as
     * recovery under {@link RecoveryPolicy#FAIL}, reporting what recovery would find, and cut or
     * refuse, without doing it. No lock is taken, so the log may be open in another process; its
     * newest segment may then end in a write in progress, which shows as a torn tail.
     *
     * @param directory the log directory.
     * @return the inspection.
     * @throws IOException if the directory or a file cannot be read.
     * @throws WalException if the directory holds no segment file.
     */
    public static LogInspection inspect(final Path directory) throws IOException {
        return new LogRecovery(
                        WalConfig.builder(directory)
                                .recoveryPolicy(RecoveryPolicy.FAIL)
                                .build(),
                        null)
                .inspect();
    }

    private LogInspection inspect() throws IOException {
        final long startNs = System.nanoTime();
        if (!Files.isDirectory(directory)) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, directory + " is not a directory: no Walden log there");
        }
        final TreeMap<Long, Path> segments = listSegments();
        if (segments.isEmpty()) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "no Walden log in " + directory + ": it holds no segment file (<20 digits>.wal)");
        }
        long start = segments.firstKey();
        try {
            readIdentity(segments);
            // Reported as a finding: an open completes it before anything else.
            readSuffixTruncation();
            final Structure structure = validateStructure(segments);
            final List<Long> bases = structure.bases();
            start = bases.get(0);
            try (SegmentScanner scanner = new SegmentScanner(logId, maxFrameBytes())) {
                final Decision decision = scanSegments(scanner, segments, structure);
                if (decision.tailIndex() < 0) {
                    final long lastBase = bases.get(bases.size() - 1);
                    final long lastEnd = lastBase + capacityBytes;
                    final ByteBuffer header = readHeader(segments.get(lastBase));
                    closedCleanly = SegmentHeaders.cleanEndPosition(header) == lastEnd;
                    return new LogInspection(
                            LogInspection.Verdict.CLEAN, report(startNs, false, start, lastEnd, bases.size()), null);
                }
                final long tailBase = bases.get(decision.tailIndex());
                final Path tailPath = segments.get(tailBase);
                final long endOffset = decision.tail().endOffset();
                final long dataEnd = scanner.dataEnd(tailPath, endOffset, capacityBytes);
                if (dataEnd > endOffset) {
                    tornTailFile = tailPath;
                    tornTailOffset = endOffset;
                    tornTailBytesCut = dataEnd - endOffset;
                    tornTailRecordsCut = countRecordsBetween(
                            scanner, decision.result().runs(), endOffset, capacityBytes, tailPath, tailBase);
                    findings.add("torn tail in " + tailPath.getFileName() + " at offset " + endOffset + ": "
                            + tornTailBytesCut + " byte(s) past everything proven durable, holding "
                            + tornTailRecordsCut + " valid record(s); an open keeps them as evidence and cuts them");
                }
                return new LogInspection(
                        dataEnd > endOffset ? LogInspection.Verdict.TORN_TAIL : LogInspection.Verdict.CLEAN,
                        report(startNs, false, start, tailBase + endOffset, decision.tailIndex() + 1),
                        null);
            }
        } catch (final WalCorruptionException ex) {
            return new LogInspection(
                    LogInspection.Verdict.CORRUPTION, report(startNs, false, start, -1, segments.size()), ex);
        }
    }

    /**
     * The segments that passed the structural checks, oldest first, and, under TRUNCATE, the base
     * from which everything is to be discarded (-1 if none).
     */
    private record Structure(List<Long> bases, long discardFromBase) {}

    /**
     * Where the scan ended: the tail segment's index in the bases, its scan and how it ends; or a tail
     * index of -1 when valid frames fill every segment.
     */
    private record Decision(int tailIndex, SegmentScanner.Result result, Tail tail) {}

    private Decision scanSegments(
            final SegmentScanner scanner, final TreeMap<Long, Path> segments, final Structure structure)
            throws IOException {
        final List<Long> bases = structure.bases();
        final boolean structuralDamageLater = structure.discardFromBase() >= 0;
        for (int i = 0; i < bases.size(); i++) {
            final long base = bases.get(i);
            final Path path = segments.get(base);
            final SegmentScanner.Result result = scanner.scan(path, base, capacityBytes);
            if (result.complete()) {
                final long openBatch =
                        result.runs().get(result.runs().size() - 1).openBatchOffset();
                if (openBatch >= 0) {
                    throw new WalCorruptionException(
                            path,
                            openBatch,
                            "the batch that starts at offset " + openBatch + " runs to the end of the segment, which"
                                    + " valid frames fill; a batch never continues into another segment");
                }
                countKept(result);
                continue;
            }
            final Path laterData = structuralDamageLater
                    ? segments.get(structure.discardFromBase())
                    : laterSegmentWithData(scanner, segments, bases, i);
            final long cleanEnd = cleanEndOffset(result, segments, bases, i);
            final long headerDurable = SegmentHeaders.durablePosition(readHeader(path));
            final long proven = Math.max(result.provenDurableOffset(), headerDurable > 0 ? headerDurable - base : 0);
            final Tail tail = judgeTail(scanner, path, base, result, proven, cleanEnd, laterData);
            if (tail == null) {
                // SKIP: the rest of this segment is skipped; a later segment holds the rest of the log.
                continue;
            }
            return new Decision(i, result, tail);
        }
        final long lastEnd = bases.get(bases.size() - 1) + capacityBytes;
        recoveredEndPosition = lastEnd;
        provenDurablePosition = lastEnd;
        return new Decision(-1, null, null);
    }

    /** What recovery does at the end of the tail segment. */
    private enum TailKind {
        /** A clean close: the log continues where it ended. */
        CLEAN,
        /** A crash: the rest of the segment is given up (a torn tail in it is cut). */
        CRASH,
        /** SKIP skips the corrupt rest of the segment, which nothing valid follows. */
        SKIP_END,
        /** TRUNCATE discards the rest of the segment, or the bytes after a clean end. */
        DISCARD,
        /** TRUNCATE: the rest of the segment and every later segment are discarded. */
        DISCARD_LATER_TOO
    }

    /**
     * How the tail segment ends.
     *
     * @param endOffset where its kept frames end.
     * @param kind what to do there.
     */
    private record Tail(long endOffset, TailKind kind) {}

    /**
     * Applies the rule, and the policy to corruption, to a segment that valid frames do not fill.
     *
     * @return how it ends, or null if SKIP skips the rest of it and later segments continue the log.
     */
    private Tail judgeTail(
            final SegmentScanner scanner,
            final Path path,
            final long base,
            final SegmentScanner.Result result,
            final long provenOffset,
            final long cleanEnd,
            final Path laterSegment)
            throws IOException {
        final boolean laterData = laterSegment != null;
        final List<SegmentScanner.Run> runs = result.runs();
        int runIndex = runs.isEmpty() || runs.get(0).startOffset() != SegmentHeaderDescriptor.HEADER_LENGTH ? 0 : 1;
        long validEnd = result.prefixEndOffset();
        long openBatch = result.prefixOpenBatchOffset();
        if (runIndex == 1) {
            countRun(runs.get(0));
        }
        provenDurablePosition = base + Math.max(provenOffset, Math.max(cleanEnd, 0));
        while (true) {
            if (validEnd == capacityBytes) {
                // SKIP skipped the last damage of a segment that valid frames fill from there on.
                return null;
            }
            final boolean dataAfter =
                    runIndex < runs.size() || gapAt(result, validEnd).holdsData();
            final RecoveryRule.Verdict verdict = RecoveryRule.judge(
                    validEnd, capacityBytes, dataAfter, provenOffset, cleanEnd, laterData, openBatch);
            if (!verdict.corrupt()) {
                closedCleanly = cleanEnd >= 0;
                final long endOffset = RecoveryRule.endOffset(validEnd, openBatch);
                if (endOffset < validEnd) {
                    records -= countRecordsBetween(scanner, runs, endOffset, validEnd, path, base);
                }
                recoveredEndPosition = base + endOffset;
                return new Tail(endOffset, cleanEnd >= 0 ? TailKind.CLEAN : TailKind.CRASH);
            }
            final long damageOffset = RecoveryRule.damageOffset(verdict, validEnd, cleanEnd);
            final String reason = reason(verdict, result, provenOffset, validEnd, cleanEnd, laterSegment, base);
            if (policy == RecoveryPolicy.FAIL) {
                throw new WalCorruptionException(path, damageOffset, reason);
            }
            // Bytes after a recorded clean end are no part of the log: nothing there to skip to.
            if (policy == RecoveryPolicy.SKIP && damageOffset == validEnd) {
                if (runIndex < runs.size()) {
                    final SegmentScanner.Run next = runs.get(runIndex++);
                    addSkipped(base, validEnd, next.startOffset(), reason);
                    countRun(next);
                    validEnd = next.endOffset();
                    openBatch = next.openBatchOffset();
                    continue;
                }
                if (laterData) {
                    addSkipped(base, validEnd, capacityBytes, reason);
                    return null;
                }
                findings.add("skipped the corrupt end of " + path.getFileName() + " from offset " + validEnd + ": "
                        + reason);
                recoveredEndPosition = base + validEnd;
                return new Tail(validEnd, TailKind.SKIP_END);
            }
            findings.add("truncated at " + path.getFileName() + " offset " + damageOffset + ": " + reason);
            if (damageOffset < validEnd) {
                records -= countRecordsBetween(scanner, runs, damageOffset, validEnd, path, base);
            }
            recoveredEndPosition = base + damageOffset;
            return new Tail(
                    damageOffset, policy == RecoveryPolicy.TRUNCATE ? TailKind.DISCARD_LATER_TOO : TailKind.DISCARD);
        }
    }

    private static SegmentScanner.Gap gapAt(final SegmentScanner.Result result, final long offset) {
        for (final SegmentScanner.Gap gap : result.gaps()) {
            if (gap.startOffset() == offset) {
                return gap;
            }
        }
        throw new IllegalStateException("no gap at offset " + offset);
    }

    private String reason(
            final RecoveryRule.Verdict verdict,
            final SegmentScanner.Result result,
            final long provenOffset,
            final long validEnd,
            final long cleanEnd,
            final Path laterSegment,
            final long base) {
        final String problem =
                validEnd < capacityBytes ? gapAt(result, validEnd).problem() : "valid frames";
        return switch (verdict) {
            case CORRUPT_BELOW_DURABLE ->
                problem + ", below offset " + provenOffset + ", which "
                        + (provenOffset > result.provenDurableOffset()
                                ? "the segment header recorded as synced when the log went idle"
                                : "the valid frame at offset " + result.provingFrameOffset()
                                        + " proves was synced before it was written")
                        + ": damage to synced data, not a torn write";
            case CORRUPT_AFTER_CLEAN_CLOSE ->
                (validEnd < cleanEnd
                                ? problem
                                : validEnd > cleanEnd
                                        ? "frames after offset " + cleanEnd
                                        : "non-zero bytes after offset " + cleanEnd)
                        + ", but the segment header records that the log was closed cleanly at offset " + cleanEnd
                        + " (position " + (base + cleanEnd) + "): after a clean close no write can be torn";
            case CORRUPT_BEFORE_LATER_SEGMENT ->
                problem + " (the segment ends early), but the later segment "
                        + laterSegment.getFileName() + " holds data, and no byte is written to a segment before the one"
                        + " before it is complete and synced";
            default -> throw new IllegalStateException("not corruption: " + verdict);
        };
    }

    /** Where the log ended at a clean close, as an offset in the tail segment; -1 if not closed cleanly. */
    private long cleanEndOffset(
            final SegmentScanner.Result result,
            final TreeMap<Long, Path> segments,
            final List<Long> bases,
            final int index)
            throws IOException {
        final long base = bases.get(index);
        final long own = SegmentHeaders.cleanEndPosition(readHeader(segments.get(base)));
        if (own >= 0) {
            return own - base;
        }
        // A session that closed at the end of the previous segment, which the log had not rolled over
        // yet: this one is then an unused prepared segment.
        if (index > 0 && !result.holdsData()) {
            final long previousBase = bases.get(index - 1);
            final long previous = SegmentHeaders.cleanEndPosition(readHeader(segments.get(previousBase)));
            if (previous == base) {
                return SegmentHeaderDescriptor.HEADER_LENGTH;
            }
        }
        return -1;
    }

    private RecoveredLog finish(
            final SegmentScanner scanner,
            final TreeMap<Long, Path> segments,
            final List<Long> bases,
            final int tailIndex,
            final SegmentScanner.Result result,
            final Tail tail,
            final long startNs)
            throws IOException {
        final long tailBase = bases.get(tailIndex);
        final Path tailPath = segments.get(tailBase);
        // Cleared whatever the verdict: the log is about to be written again.
        clearCleanClose(segments, tailBase, tailBase + tail.endOffset());
        final int tailHandle = session.openFile(tailPath, false);
        if (tail.kind() == TailKind.CLEAN) {
            final int nextHandle = keepNextPrepared(segments, bases, tailIndex, tailBase + capacityBytes);
            return recovered(startNs, bases.get(0), tailBase, tailHandle, nextHandle, tailBase + tail.endOffset());
        }
        cutAndDiscard(scanner, tailPath, tailBase, tailHandle, tail, result);
        session.closeFile(tailHandle);
        if (tail.kind() == TailKind.DISCARD_LATER_TOO && segments.lastKey() > tailBase) {
            // Everything after the tail segment goes too; positions stay unique, segments contiguous.
            return createLog(
                    startNs, discardSegments(scanner, segments, tailBase + capacityBytes), bases.get(0), false);
        }
        final long activeBase = tailBase + capacityBytes;
        final Path activePath = segments.get(activeBase);
        // An existing next segment is an unused prepared one: had it data, the rule would have judged
        // corruption.
        final int activeHandle = activePath != null ? session.openFile(activePath, false) : prepareSegment(activeBase);
        final int nextHandle = keepNextPrepared(segments, bases, tailIndex + 1, activeBase + capacityBytes);
        return recovered(
                startNs,
                bases.get(0),
                activeBase,
                activeHandle,
                nextHandle,
                activeBase + SegmentHeaderDescriptor.HEADER_LENGTH);
    }

    /**
     * Gives up the rest of the tail segment from the tail's end: keeps what lies there as evidence,
     * zeroes it, makes the frames before it durable, and covers the rest of the segment with a discard
     * frame.
     *
     * <p>The zeroing survives a crash in its middle. A cut may give up valid frames that prove
     * positions past the cut durable (a batch the crash left open whose first frames a sync covered,
     * and the frames after it); zeroed bytes below such a proof, with the proving frame still intact,
     * would read as damage to synced data at the next recovery. So the range is zeroed from its end
     * down, in steps that start at the durable offsets its frames carry, each step synced before the
     * next: whenever a crash comes, no frame left intact proves a zeroed byte, and the next recovery
     * makes the same cut.
     *
     * @param tail where the kept frames end, and why: a crash (the bytes given up are a torn tail), or
     *     the policy.
     */
    private void cutAndDiscard(
            final SegmentScanner scanner,
            final Path path,
            final long base,
            final int handle,
            final Tail tail,
            final SegmentScanner.Result result)
            throws IOException {
        final long fromOffset = tail.endOffset();
        final TailKind kind = tail.kind();
        final long nonZeroEnd = scanner.dataEnd(path, fromOffset, capacityBytes);
        if (nonZeroEnd > fromOffset) {
            keepEvidence(scanner, path, base, fromOffset, nonZeroEnd);
            final long cutRecords = countRecordsBetween(scanner, result.runs(), fromOffset, capacityBytes, path, base);
            final String kept = " kept in " + evidence.get(evidence.size() - 1).getFileName();
            if (kind == TailKind.CRASH) {
                tornTailFile = path;
                tornTailOffset = fromOffset;
                tornTailBytesCut = nonZeroEnd - fromOffset;
                tornTailRecordsCut = cutRecords;
                findings.add("cut the torn tail of " + path.getFileName() + " at offset " + fromOffset
                        + " (positions " + (base + fromOffset) + " to " + (base + nonZeroEnd) + "): "
                        + tornTailBytesCut + " byte(s) past everything proven durable or of a batch the crash"
                        + " left incomplete, holding " + cutRecords + " valid record(s) never acknowledged;" + kept);
            } else {
                if (kind == TailKind.SKIP_END) {
                    skippedBytes += nonZeroEnd - fromOffset;
                } else {
                    droppedBytes += nonZeroEnd - fromOffset;
                }
                findings.add((kind == TailKind.SKIP_END ? "skipped " : "discarded ") + path.getFileName()
                        + " from offset " + fromOffset + ": " + (nonZeroEnd - fromOffset) + " byte(s) holding "
                        + cutRecords + " valid record(s);" + kept);
            }
            final TreeSet<Long> steps = new TreeSet<>();
            for (final SegmentScanner.Run run : result.runs()) {
                if (run.endOffset() > fromOffset && run.startOffset() < nonZeroEnd) {
                    scanner.collectDurableOffsets(path, run, fromOffset, nonZeroEnd, steps);
                }
            }
            long top = nonZeroEnd;
            for (final long step : steps.descendingSet()) {
                if (step < top) {
                    zeroRange(handle, path, step, top);
                    io.sync(handle);
                    top = step;
                }
            }
            zeroRange(handle, path, fromOffset, top);
        }
        // The frames before the cut become durable before a frame that says so is written.
        io.sync(handle);
        writeDiscardFrame(handle, path, base, fromOffset);
        io.sync(handle);
        if (fromOffset < capacityBytes) {
            findings.add("positions " + (base + fromOffset) + " to " + (base + capacityBytes) + " of "
                    + path.getFileName() + " given up: the log continues in the next segment, so that no position"
                    + " a reader may have seen before is given to another record");
        }
    }

    /** Data frames of the runs in [from, to); a run that either bound cuts through is walked frame by frame. */
    private static long countRecordsBetween(
            final SegmentScanner scanner,
            final List<SegmentScanner.Run> runs,
            final long fromOffset,
            final long toOffset,
            final Path path,
            final long base)
            throws IOException {
        long count = 0;
        for (final SegmentScanner.Run run : runs) {
            if (run.startOffset() >= fromOffset && run.endOffset() <= toOffset) {
                count += run.records();
            } else if (run.endOffset() > fromOffset && run.startOffset() < toOffset) {
                count += scanner.countDataFrames(
                        path,
                        base,
                        run.startOffset(),
                        Math.max(fromOffset, run.startOffset()),
                        Math.min(toOffset, run.endOffset()));
            }
        }
        return count;
    }

    /** Writes a discard frame covering [offset, capacity) with a block-aligned read-modify-write. */
    private void writeDiscardFrame(final int handle, final Path path, final long base, final long offset)
            throws IOException {
        if (offset >= capacityBytes) {
            return;
        }
        final long blockStart = offset & -(long) BLOCK_BYTES;
        // The frame's header (or, with 8 bytes left, its short padding) ends within the segment, whose
        // capacity is a multiple of the block: the write never runs past the segment's end.
        final long frameEnd = Math.min(offset + FrameDescriptor.HEADER_LENGTH, capacityBytes);
        final long blockEnd = (frameEnd + BLOCK_BYTES - 1) & -(long) BLOCK_BYTES;
        try (AlignedBuffer memory = new AlignedBuffer((int) (blockEnd - blockStart));
                FileChannel reader = FileChannel.open(path, StandardOpenOption.READ)) {
            final ByteBuffer block = memory.buffer();
            readFully(reader, block, blockStart);
            DiscardFrames.write(block, (int) (offset - blockStart), base + offset, offset, capacityBytes, logId);
            io.write(handle, blockStart, block, (int) (blockEnd - blockStart));
        }
    }

    /**
     * Discards every segment from a base on (TRUNCATE): each existing file is moved into the evidence
     * directory, and every base up to the highest one the log had gets a segment that holds only a
     * discard frame, so that segments stay contiguous and no position is given out twice.
     *
     * @return where the log continues: the base after the highest segment it had.
     */
    private long discardSegments(final SegmentScanner scanner, final TreeMap<Long, Path> segments, final long fromBase)
            throws IOException {
        final long continueAt = (segments.lastKey() / capacityBytes + 1) * capacityBytes;
        // Files whose names are not a multiple of the capacity (foreign files) are moved, not replaced.
        for (final Path path : segments.tailMap(fromBase, true).values()) {
            if (SegmentNames.parseSegmentName(path.getFileName().toString()) % capacityBytes != 0) {
                droppedBytes += Files.size(path);
                moveToEvidence(path);
            }
        }
        // Newest first: a crash part way leaves discarded segments after the kept ones, never a gap
        // between kept ones.
        for (long base = continueAt - capacityBytes; base >= fromBase; base -= capacityBytes) {
            Path existing = segments.get(base);
            if (existing != null && scanner.holdsData(existing, capacityBytes)) {
                droppedBytes += Files.size(existing);
            } else if (existing != null) {
                // An unused prepared segment: nothing to keep.
                io.delete(existing);
                existing = null;
            }
            replaceWithDiscarded(base, existing, true);
        }
        findings.add("discarded positions " + fromBase + " to " + continueAt + ": the segments there were moved into "
                + evidenceDirectory() + " and replaced by segments that hold one discard frame");
        return continueAt;
    }

    /**
     * Replaces the segment at a base (if any) with one that holds a single discard frame, through a
     * temporary file renamed into place; the existing file is kept as evidence, or deleted.
     */
    private void replaceWithDiscarded(final long base, final Path existing, final boolean keepEvidence)
            throws IOException {
        final Path temporary = directory.resolve(SegmentNames.temporaryName(base));
        try (AlignedBuffer memory = new AlignedBuffer(2 * BLOCK_BYTES)) {
            final ByteBuffer blocks = memory.buffer();
            SegmentHeaders.write(blocks, capacityBytes, base, logId);
            DiscardFrames.write(
                    blocks,
                    SegmentHeaderDescriptor.HEADER_LENGTH,
                    base + SegmentHeaderDescriptor.HEADER_LENGTH,
                    SegmentHeaderDescriptor.HEADER_LENGTH,
                    capacityBytes,
                    logId);
            final int handle = session.openFile(temporary, true);
            io.write(handle, 0, blocks, 2 * BLOCK_BYTES);
            if (capacityBytes > 2 * BLOCK_BYTES) {
                writeLastBlock(handle, blocks);
            }
            io.sync(handle);
            session.closeFile(handle);
        }
        if (existing != null && keepEvidence) {
            moveToEvidence(existing);
        } else if (existing != null) {
            io.delete(existing);
        }
        io.rename(temporary, SegmentNames.segmentPath(directory, base));
        io.syncDirectory();
    }

    /** Keeps the prepared, unused segment at a base as the next one; deletes every other later segment. */
    private int keepNextPrepared(
            final TreeMap<Long, Path> segments, final List<Long> bases, final int fromIndex, final long nextBase)
            throws IOException {
        int nextHandle = -1;
        // Newest first, each delete synced on its own: a crash part way leaves an unbroken run of
        // segments (unsynced directory changes survive in any subset), never a gap.
        for (int j = bases.size() - 1; j > fromIndex; j--) {
            final long base = bases.get(j);
            final Path path = segments.get(base);
            if (base == nextBase) {
                nextHandle = session.openFile(path, false);
            } else {
                io.delete(path);
                io.syncDirectory();
            }
        }
        return nextHandle;
    }

    /**
     * Clears the clean-close record of the segment that holds it, if it holds one, before the log is
     * written again: a later crash must never look like a clean close.
     *
     * @return whether the log was closed cleanly at {@code endPosition}.
     */
    private boolean clearCleanClose(final TreeMap<Long, Path> segments, final long base, final long endPosition)
            throws IOException {
        boolean clean = false;
        for (long candidate = base; candidate >= base - capacityBytes && candidate >= 0; candidate -= capacityBytes) {
            final Path path = segments.get(candidate);
            if (path == null) {
                continue;
            }
            final ByteBuffer header = readHeader(path);
            final long cleanEnd = SegmentHeaders.cleanEndPosition(header);
            if (cleanEnd < 0) {
                continue;
            }
            clean |= cleanEnd == endPosition;
            try (AlignedBuffer memory = new AlignedBuffer(BLOCK_BYTES)) {
                final ByteBuffer block = memory.buffer();
                block.put(header.clear());
                // The durable position stays true; only the clean close is withdrawn.
                SegmentHeaders.writeState(block, SegmentHeaders.durablePosition(header), false);
                final int handle = session.openFile(path, false);
                try {
                    io.write(handle, 0, block, BLOCK_BYTES);
                    io.sync(handle);
                } finally {
                    session.closeFile(handle);
                }
            }
        }
        return clean;
    }

    private RecoveredLog recovered(
            final long startNs,
            final long firstBase,
            final long activeBase,
            final int activeHandle,
            final int nextHandle,
            final long endPosition) {
        final RecoveryReport report =
                report(startNs, false, firstBase, endPosition, (int) ((activeBase - firstBase) / capacityBytes) + 1);
        return new RecoveredLog(
                logId,
                capacityBytes,
                firstBase,
                activeBase,
                activeHandle,
                nextHandle,
                endPosition,
                skippedRanges.toLongArray(),
                report);
    }

    /** The first segment after the one at an index that holds any data, or null. */
    private Path laterSegmentWithData(
            final SegmentScanner scanner, final TreeMap<Long, Path> segments, final List<Long> bases, final int index)
            throws IOException {
        for (int j = index + 1; j < bases.size(); j++) {
            final Path path = segments.get(bases.get(j));
            if (scanner.holdsData(path, capacityBytes)) {
                return path;
            }
        }
        return null;
    }

    private void countKept(final SegmentScanner.Result result) {
        for (final SegmentScanner.Run run : result.runs()) {
            countRun(run);
        }
    }

    private void countRun(final SegmentScanner.Run run) {
        records += run.records();
        bytesScanned += run.endOffset() - run.startOffset();
    }

    private static boolean isSegmentTemporary(final Path path) {
        return path.getFileName().toString().endsWith(SegmentNames.TEMPORARY_SUFFIX);
    }

    /**
     * Reads the suffix-truncation record, if the directory holds one: a truncation that began and did
     * not finish. Cold path.
     *
     * @return the record, or null if there is none.
     * @throws WalCorruptionException if the file is there and not a valid record of this log.
     */
    private SuffixTruncationRecord readSuffixTruncation() throws IOException {
        final Path path = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        if (!Files.exists(path)) {
            return null;
        }
        final ByteBuffer block = ByteBuffer.allocate(SuffixTruncationDescriptor.LENGTH);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            if (channel.size() != SuffixTruncationDescriptor.LENGTH || !readFully(channel, block, 0)) {
                throw new WalCorruptionException(
                        path,
                        0,
                        "the suffix-truncation record is " + channel.size() + " bytes long, not "
                                + SuffixTruncationDescriptor.LENGTH
                                + "; it is written whole and renamed into place, so it is damaged");
            }
        }
        final SuffixTruncationRecord record;
        try {
            record = SuffixTruncationRecord.read(block.clear(), capacityBytes);
        } catch (final IllegalArgumentException ex) {
            throw new WalCorruptionException(path, 0, "the suffix-truncation record is damaged: " + ex.getMessage());
        }
        if (record.logId() != logId) {
            throw new WalCorruptionException(
                    path,
                    SuffixTruncationDescriptor.LOG_ID_OFFSET,
                    "the suffix-truncation record belongs to another log (identity " + Long.toHexString(record.logId())
                            + ", this log's is " + Long.toHexString(logId) + ")");
        }
        if (session == null) {
            findings.add("a suffix truncation (truncateAfter) is pending: the next open discards positions "
                    + record.cutPosition() + " to " + record.continuePosition()
                    + "; what follows describes the log before it");
        }
        return session == null ? null : record;
    }

    /**
     * Completes a suffix truncation that {@code truncateAfter} began: every later segment up to the
     * continue position is replaced by one that holds a discard frame (newest first), the segment that
     * holds the cut is zeroed from the cut on and closed with a discard frame, and the record is
     * deleted. Each step is synced before the next, and the record stays until the end, so a crash at
     * any step is completed again by the next open. Nothing is kept as evidence: the records were
     * discarded on request. The records before the cut must be intact: they are what the truncation
     * keeps.
     */
    private void completeSuffixTruncation(
            final TreeMap<Long, Path> segments, final SuffixTruncationRecord record, final long knownEndPosition)
            throws IOException {
        final long cut = record.cutPosition();
        final long cutBase = cut - cut % capacityBytes;
        final long cutOffset = cut - cutBase;
        final long firstDiscardBase = cutOffset == 0 ? cutBase : cutBase + capacityBytes;
        final Path recordPath = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        if (segments.firstKey() > (cutOffset == 0 ? cutBase - capacityBytes : cutBase)) {
            throw new WalCorruptionException(
                    recordPath,
                    SuffixTruncationDescriptor.CUT_POSITION_OFFSET,
                    "a pending suffix truncation keeps the log up to position " + cut
                            + ", but the segment that holds it is gone (the oldest segment starts at "
                            + segments.firstKey() + ")");
        }
        for (long base = record.continuePosition() - capacityBytes; base >= firstDiscardBase; base -= capacityBytes) {
            replaceWithDiscarded(base, segments.get(base), false);
        }
        if (cutOffset != 0) {
            final Path path = segments.get(cutBase);
            if (path == null) {
                throw new WalCorruptionException(
                        recordPath,
                        SuffixTruncationDescriptor.CUT_POSITION_OFFSET,
                        "a pending suffix truncation cuts segment " + SegmentNames.segmentName(cutBase)
                                + ", which is missing");
            }
            cutSegment(path, cutBase, cutOffset, knownEndPosition);
        }
        io.delete(recordPath);
        io.syncDirectory();
        findings.add("completed a suffix truncation (truncateAfter): positions " + cut + " to "
                + record.continuePosition() + " discarded; the log continues at " + record.continuePosition());
    }

    /** Zeroes a segment from an offset on and closes it there with a discard frame (a suffix truncation). */
    private void cutSegment(final Path path, final long base, final long cutOffset, final long knownEndPosition)
            throws IOException {
        // Where the segment's frames end, if the caller knows (an open log it stopped): nothing after
        // that was ever written, so neither the scan nor the search for non-zero bytes need go further.
        final long knownEndOffset =
                knownEndPosition > base && knownEndPosition - base <= capacityBytes ? knownEndPosition - base : -1;
        try (SegmentScanner scanner = new SegmentScanner(logId, maxFrameBytes())) {
            final SegmentScanner.Result result =
                    scanner.scan(path, base, knownEndOffset > 0 ? knownEndOffset : capacityBytes);
            if (result.prefixEndOffset() < cutOffset) {
                throw new WalCorruptionException(
                        path,
                        result.prefixEndOffset(),
                        "a pending suffix truncation keeps this segment's records up to offset " + cutOffset
                                + ", but they are damaged from offset " + result.prefixEndOffset() + ": "
                                + gapAt(result, result.prefixEndOffset()).problem());
            }
            final int handle = session.openFile(path, false);
            try {
                // The header first: no clean close, and no durable position past the cut.
                final ByteBuffer header = readHeader(path);
                final long durable = SegmentHeaders.durablePosition(header);
                try (AlignedBuffer memory = new AlignedBuffer(BLOCK_BYTES)) {
                    final ByteBuffer block = memory.buffer();
                    block.put(header.clear());
                    final long cutPosition = base + cutOffset;
                    final long keptDurable = durable <= cutPosition
                            ? durable
                            : cutOffset > SegmentHeaderDescriptor.HEADER_LENGTH ? cutPosition : 0;
                    SegmentHeaders.writeState(block, keptDurable, false);
                    io.write(handle, 0, block, BLOCK_BYTES);
                }
                final long nonZeroEnd =
                        knownEndOffset > 0 ? knownEndOffset : scanner.dataEnd(path, cutOffset, capacityBytes);
                if (nonZeroEnd > cutOffset) {
                    zeroRange(handle, path, cutOffset, nonZeroEnd);
                }
                io.sync(handle);
                writeDiscardFrame(handle, path, base, cutOffset);
                io.sync(handle);
            } finally {
                session.closeFile(handle);
            }
        }
    }

    private TreeMap<Long, Path> listSegments() throws IOException {
        final TreeMap<Long, Path> segments = new TreeMap<>();
        final List<Path> temporaries = new ArrayList<>();
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
        if (session == null) {
            for (final Path temporary : temporaries) {
                findings.add("unfinished " + (isSegmentTemporary(temporary) ? "segment preparation " : "write of ")
                        + temporary.getFileName() + " (an open deletes it)");
            }
            return segments;
        }
        for (final Path temporary : temporaries) {
            io.delete(temporary);
            findings.add("deleted unfinished " + (isSegmentTemporary(temporary) ? "segment preparation " : "write of ")
                    + temporary.getFileName());
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
        final Map<Long, Integer> votes = new HashMap<>();
        final Map<Long, Integer> capacities = new HashMap<>();
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

    /** Checks every segment's header, size and place; applies the policy to the first problem. */
    private Structure validateStructure(final TreeMap<Long, Path> segments) throws IOException {
        final List<Long> bases = new ArrayList<>();
        long expectedBase = -1;
        for (final Map.Entry<Long, Path> entry : segments.entrySet()) {
            final long base = entry.getKey();
            final Path path = entry.getValue();
            final String problem = structuralProblem(path, base, expectedBase);
            if (problem != null) {
                if (policy != RecoveryPolicy.TRUNCATE) {
                    throw new WalCorruptionException(path, expectedBase >= 0 && base != expectedBase ? -1 : 0, problem);
                }
                findings.add("truncated before " + path.getFileName() + ": " + problem);
                return new Structure(bases, expectedBase >= 0 ? expectedBase : base);
            }
            bases.add(base);
            expectedBase = base + capacityBytes;
        }
        return new Structure(bases, -1);
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

    private void zeroRange(final int handle, final Path path, final long fromOffset, final long toOffset)
            throws IOException {
        final long alignedStart = fromOffset & ~(BLOCK_BYTES - 1L);
        final long alignedEnd = Math.min(capacityBytes, (toOffset + BLOCK_BYTES - 1) & ~(BLOCK_BYTES - 1L));
        // Small writes: see WalConfig.PREPARE_WRITE_BYTES (appends go on in this range).
        final int chunkBytes = WalConfig.PREPARE_WRITE_BYTES;
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
    }

    /** Copies [from, to) of a segment into a new evidence file and makes it durable. */
    private void keepEvidence(
            final SegmentScanner scanner, final Path path, final long base, final long fromOffset, final long toOffset)
            throws IOException {
        final Path file = newEvidenceFile(String.format(
                "%s-%020d-%020d.cut",
                path.getFileName().toString().replace(SegmentNames.SEGMENT_SUFFIX, ""),
                base + fromOffset,
                base + toOffset));
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            scanner.copyRange(path, fromOffset, toOffset, bytes -> {
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
            });
            out.force(true);
        }
        syncDirectory(evidenceDirectory());
        evidence.add(file);
    }

    private void moveToEvidence(final Path segment) throws IOException {
        final Path target = newEvidenceFile(segment.getFileName().toString());
        Files.move(segment, target, StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(evidenceDirectory());
        syncDirectory(directory);
        evidence.add(target);
    }

    private Path newEvidenceFile(final String name) throws IOException {
        final Path evidenceDirectory = evidenceDirectory();
        if (!Files.isDirectory(evidenceDirectory)) {
            try {
                Files.createDirectory(evidenceDirectory);
            } catch (final FileAlreadyExistsException ex) {
                // Created meanwhile; fine.
            }
            syncDirectory(directory);
        }
        Path file = evidenceDirectory.resolve(evidenceStamp + "-" + name);
        for (int i = 2; Files.exists(file); i++) {
            file = evidenceDirectory.resolve(evidenceStamp + "-" + i + "-" + name);
        }
        return file;
    }

    private Path evidenceDirectory() {
        return directory.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME);
    }

    private static void syncDirectory(final Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private RecoveredLog createLog(final long startNs, final long base, final long firstBase, final boolean newLog)
            throws IOException {
        final int handle = prepareSegment(base);
        final long end = base + SegmentHeaderDescriptor.HEADER_LENGTH;
        if (recoveredEndPosition < 0) {
            recoveredEndPosition = end;
            provenDurablePosition = end;
        }
        final RecoveryReport report =
                report(startNs, newLog, firstBase, end, (int) ((base - firstBase) / capacityBytes) + 1);
        return new RecoveredLog(
                logId, capacityBytes, firstBase, base, handle, -1, end, skippedRanges.toLongArray(), report);
    }

    /**
     * Prepares a segment synchronously as a hurried {@link SegmentPreparer} does: allocated where the
     * backend can (else the last block written, leaving a hole that reads as zeros), header written,
     * synced, renamed into place, directory synced; not zero-filled.
     */
    private int prepareSegmentHurried(final long base) throws IOException {
        final Path temporary = directory.resolve(SegmentNames.temporaryName(base));
        try (AlignedBuffer memory = new AlignedBuffer(BLOCK_BYTES)) {
            final ByteBuffer block = memory.buffer();
            final int handle = session.openFile(temporary, true);
            final boolean allocated = io.allocate(handle, 0, capacityBytes) == capacityBytes;
            SegmentHeaders.write(block, capacityBytes, base, logId);
            io.write(handle, 0, block, BLOCK_BYTES);
            if (!allocated) {
                writeLastBlock(handle, block);
            }
            io.sync(handle);
            io.rename(temporary, SegmentNames.segmentPath(directory, base));
            io.syncDirectory();
            return handle;
        }
    }

    /**
     * Writes a segment file's last block with zeros, which gives it its full size; the range before it
     * that nothing wrote is a hole, which reads as zeros.
     *
     * @param scratch a buffer of at least one block, overwritten.
     */
    private void writeLastBlock(final int handle, final ByteBuffer scratch) throws IOException {
        scratch.clear();
        for (int i = 0; i < BLOCK_BYTES; i += Long.BYTES) {
            scratch.putLong(i, 0);
        }
        io.write(handle, capacityBytes - BLOCK_BYTES, scratch, BLOCK_BYTES);
    }

    /** Prepares a segment synchronously, as {@link SegmentPreparer} does in the background. */
    private int prepareSegment(final long base) throws IOException {
        final Path temporary = directory.resolve(SegmentNames.temporaryName(base));
        try (AlignedBuffer headerMemory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH);
                AlignedBuffer zeroMemory = new AlignedBuffer(WalConfig.PREPARE_WRITE_BYTES)) {
            final ByteBuffer header = headerMemory.buffer();
            final ByteBuffer zeros = zeroMemory.buffer();
            SegmentHeaders.write(header, capacityBytes, base, logId);
            final int handle = session.openFile(temporary, true);
            io.write(handle, 0, header, SegmentHeaderDescriptor.HEADER_LENGTH);
            for (long offset = SegmentHeaderDescriptor.HEADER_LENGTH; offset < capacityBytes; ) {
                final int length = (int) Math.min(WalConfig.PREPARE_WRITE_BYTES, capacityBytes - offset);
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
            return readFully(channel, header, 0) ? header : null;
        }
    }

    private static boolean readFully(final FileChannel channel, final ByteBuffer buffer, final long position)
            throws IOException {
        buffer.clear();
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                return false;
            }
        }
        buffer.clear();
        return true;
    }

    private void addSkipped(final long base, final long fromOffset, final long toOffset, final String reason) {
        skippedRanges.addLong(base + fromOffset);
        skippedRanges.addLong(base + toOffset);
        skippedBytes += toOffset - fromOffset;
        findings.add("skipped corrupt bytes at positions [" + (base + fromOffset) + ", " + (base + toOffset) + "): "
                + reason);
    }

    private int maxFrameBytes() {
        return FrameDescriptor.frameLength(config.maxRecordBytes());
    }

    private RecoveryReport report(
            final long startNs,
            final boolean newLog,
            final long startPosition,
            final long endPosition,
            final int segmentCount) {
        return new RecoveryReport(
                newLog,
                logId,
                capacityBytes,
                segmentCount,
                records,
                bytesScanned,
                startPosition,
                endPosition,
                closedCleanly,
                recoveredEndPosition,
                provenDurablePosition,
                tornTailFile,
                tornTailOffset,
                tornTailBytesCut,
                tornTailRecordsCut,
                droppedBytes,
                skippedBytes,
                List.copyOf(evidence),
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
