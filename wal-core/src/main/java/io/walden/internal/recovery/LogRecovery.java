package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.format.SuffixTruncationDescriptor;
import io.walden.internal.events.RecoveryEvent;
import io.walden.internal.recovery.TailJudge.Tail;
import io.walden.internal.segment.BlockingIo;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.PendingWrite;
import io.walden.internal.segment.SuffixTruncationRecord;
import io.walden.internal.segment.WriteLimits;
import io.walden.internal.state.NoSpace;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * Opens a log directory: validates every segment header and every frame, decides with {@link
 * RecoveryRule} what the end of the log is, cuts a torn tail, and applies the {@link RecoveryPolicy}
 * to corruption (FORMAT.md, "Recovery rules"). Decisions, in order:
 *
 * <ol>
 *   <li>Leftover {@code .wal.tmp} files (unfinished preparations) are deleted, directory synced.
 *   <li>No segment: a new log with a new identity and a prepared first segment.
 *   <li>A bad header, the wrong size, another log's identity, or a gap: structural corruption.
 *   <li>The tail segment, the first that valid frames do not fill, is judged by {@link RecoveryRule}.
 *   <li>After a clean close the log continues where it ended, the clean-close record cleared (and
 *       synced) first, so that a later crash is never mistaken for a clean close.
 *   <li>After a crash the torn tail is kept as evidence, zeroed, synced and covered by a discard frame
 *       up to the header's write limit, where the log continues ({@link WriteLimits#continueOffset}),
 *       else to the segment's end: no position a reader may have seen is given out again.
 *   <li>{@link RecoveryPolicy#TRUNCATE} does the same from the damage on; later segments are moved to
 *       the evidence directory and replaced by segments holding one discard frame.
 *   <li>{@link RecoveryPolicy#SKIP} keeps each range it skips inside a segment as evidence and covers
 *       it with a discard frame ({@link SkipRepair}), before any other change, so that the log opens
 *       under every policy afterwards.
 * </ol>
 *
 * <p>Evidence is made durable (file, directory) before the log is changed, and every change is synced
 * before the next one depends on it, so a crash during recovery leaves a state that the same rules
 * recover again.
 *
 * <pre>
 *   LogRecovery ─► LogSurvey (shared with LogInspector) ─► SegmentInventory: list, identity, structure
 *        │                                              └► LogScan ─► SegmentScanner, TailJudge
 *        │                                                   (RecoveryRule, TailDecision ─► TailOutcome)
 *        ├─► SkipRepair ─► SkipCover: covers the ranges SKIP skipped, first
 *        ├─► TailRepair ─► RecoveryEvidence, RecoveryWriter: carries the TailOutcome out
 *        ├─► SuffixTruncationCompletion: finishes a pending truncateAfter
 *        └─► RecoveryTally: the report
 * </pre>
 *
 * <p><b>Threading:</b> runs on the opening thread, which owns the session until the I/O thread
 * starts.
 */
public final class LogRecovery {
    private final WalConfig config;
    private final Path directory;
    private final StorageSession session;
    private final BlockingIo io;
    private final RecoveryTally tally = new RecoveryTally();
    private final RecoveryEvidence evidence;
    private final SegmentInventory inventory;
    private final LogSurvey survey;

    // Known once the headers have been read.
    private long logId;
    private int capacityBytes;
    private RecoveryWriter writer;
    // The configuration as the log's own segment capacity makes it (WalConfig.forSegmentCapacity).
    private WalConfig logConfig;
    // Whether this pass removed the leftover temporary files (beginChanges).
    // The discard frame recovery left to the running log for lack of space (copy on write), or null.
    private PendingWrite tailRepair;
    private boolean temporariesRemoved;

    public LogRecovery(final WalConfig config, final StorageSession session) {
        this.config = config;
        this.directory = config.directory();
        this.session = session;
        this.io = new BlockingIo(session);
        this.evidence = new RecoveryEvidence(directory);
        this.inventory = new SegmentInventory(config, io, tally);
        this.survey = new LogSurvey(config, inventory, tally);
    }

    /** Recovers the log that a session opens, reporting it as a {@link RecoveryEvent}. */
    public static RecoveredLog recover(final WalConfig config, final StorageSession session) throws IOException {
        final RecoveryEvent event = RecoveryEvent.beginIfEnabled();
        if (event == null) {
            return new LogRecovery(config, session).recover();
        }
        event.directory = config.directory().toString();
        try {
            final RecoveredLog recovered = new LogRecovery(config, session).recover();
            event.describe(recovered.report());
            return recovered;
        } catch (final IOException | RuntimeException ex) {
            event.refusal = ex.getMessage();
            throw ex;
        } finally {
            event.commit();
        }
    }

    /** Refuses the log, nothing changed, or returns it ready to go on, its active segment open. */
    public RecoveredLog recover() throws IOException {
        final long startNs = System.nanoTime();
        temporariesRemoved = false;
        try (LogSurvey.Survey found = survey.survey(true, LogRecovery::newLogId, this::readTruncation)) {
            switch (found.stage()) {
                case NO_SEGMENTS -> {
                    identify(new SegmentInventory.Identity(newLogId(), config.segmentCapacityBytes()));
                    // Refused for space before anything is changed: a new log needs its first segment.
                    RecoverySpace.require(directory, 0, capacityBytes, inventory.temporaryBytes());
                    return createLog(startNs, 0, 0, true);
                }
                case TRUNCATION_PENDING -> {
                    beginChanges();
                    truncations()
                            .dropUnusedAt(found.segments(), found.truncation().continuePosition());
                    truncations().complete(found.segments(), found.truncation(), -1);
                    // The log is now exactly what the truncation makes of it; recover it as it stands.
                    return recover();
                }
                case NO_VALID_SEGMENT -> {
                    return restartAfterEverySegment(startNs, found.segments());
                }
                case SCANNED -> {
                    final LogScan.Decision decision = found.decision();
                    return decision.tailIndex() >= 0
                            ? finish(found, decision.tailIndex(), decision.scan(), decision.tail(), startNs)
                            : continueAfterFullSegments(found, startNs);
                }
                default -> throw new IllegalStateException("unknown survey stage " + found.stage());
            }
        }
    }

    private SuffixTruncationRecord readTruncation(final SegmentInventory.Identity identity) throws IOException {
        identify(identity);
        return truncations().read();
    }

    private RecoveredLog restartAfterEverySegment(final long startNs, final TreeMap<Long, Path> segments)
            throws IOException {
        // Positions are never reused: the log restarts after the highest segment it had.
        final long restart = (segments.lastKey() / capacityBytes + 1) * capacityBytes;
        beginChanges();
        for (final Path path : segments.values()) {
            tally.dropped(Files.size(path));
            evidence.moveSegment(path);
        }
        tally.finding("no valid segment left; every segment file was moved into " + evidence.directory()
                + " and the log restarts at position " + restart);
        return createLog(startNs, restart, restart, false);
    }

    private RecoveredLog continueAfterFullSegments(final LogSurvey.Survey found, final long startNs)
            throws IOException {
        final TreeMap<Long, Path> segments = found.segments();
        final List<Long> bases = found.structure().bases();
        final long discardFromBase = found.structure().discardFromBase();
        final long lastBase = bases.get(bases.size() - 1);
        final long lastEnd = lastBase + capacityBytes;
        final long evidenceBytes = SkipRepair.evidenceBytes(tally);
        // The log continues in a new segment: made now if it fits, else by the running log.
        final boolean segmentDeferred = discardFromBase < 0 && !segmentFits(evidenceBytes);
        // Refused for space before anything is changed.
        RecoverySpace.require(
                directory,
                evidenceBytes,
                discardFromBase < 0 && !segmentDeferred ? capacityBytes : 0,
                inventory.temporaryBytes());
        beginChanges();
        skips().coverAll(found.scanner());
        tally.closedCleanly = repair().clearCleanClose(segments, lastBase, lastEnd);
        if (segmentDeferred) {
            return openAtSegmentEnd(startNs, bases.get(0), lastBase, session.openFile(segments.get(lastBase), false));
        }
        if (discardFromBase >= 0) {
            return createLog(
                    startNs, repair().discardSegments(found.scanner(), segments, discardFromBase), bases.get(0), false);
        }
        return createLog(startNs, lastEnd, bases.get(0), false);
    }

    /**
     * Completes the suffix truncation whose record {@code truncateAfter} on an open log just wrote, and
     * returns the log to continue at the first frame of the segment at {@code continueBase}, without
     * scanning (the caller stopped the log there, every record durable); a missing segment there is
     * prepared now. Refuses the log if the record is gone or the kept records are damaged.
     */
    public RecoveredLog completeTruncationAndContinue(
            final long firstSegmentBase,
            final long endPosition,
            final long continueBase,
            final long[] openSkippedRanges)
            throws IOException {
        final long startNs = System.nanoTime();
        final TreeMap<Long, Path> segments = inventory.list();
        identify(inventory.readIdentity(segments, LogRecovery::newLogId));
        inventory.removeTemporaries();
        final SuffixTruncationRecord record = truncations().read();
        final Path recordPath = directory.resolve(SuffixTruncationDescriptor.FILE_NAME);
        if (record == null || record.continuePosition() != continueBase) {
            throw new WalCorruptionException(
                    recordPath,
                    SuffixTruncationDescriptor.CONTINUE_POSITION_OFFSET,
                    "the suffix-truncation record written a moment ago is "
                            + (record == null ? "gone" : "for continue position " + record.continuePosition())
                            + ", not for " + continueBase);
        }
        truncations().complete(segments, record, endPosition);
        for (int i = 0; i < openSkippedRanges.length; i += 2) {
            if (openSkippedRanges[i + 1] <= record.cutPosition()) {
                tally.skippedWhenOpened(openSkippedRanges[i], openSkippedRanges[i + 1]);
            }
        }
        final Path path = SegmentNames.segmentPath(directory, continueBase);
        final ByteBuffer header = Files.exists(path) ? FileReads.readHeader(path) : null;
        final boolean prepared = header != null
                && SegmentHeaderDecoder.validate(header, continueBase) == null
                && SegmentHeaderDecoder.logId(header) == logId
                && SegmentHeaderDecoder.cleanEndPosition(header) < 0;
        if (!prepared && header != null) {
            io.delete(path);
            io.syncDirectory();
        }
        final int handle = prepared ? session.openFile(path, false) : writer.prepareSegment(continueBase);
        final long end = continueBase + SegmentHeaderDescriptor.HEADER_LENGTH;
        tally.recoveredEndPosition = end;
        tally.provenDurablePosition = end;
        final int limitOffset = repair().recordWriteLimit(handle, path, SegmentHeaderDescriptor.HEADER_LENGTH);
        return new RecoveredLog(
                logId,
                capacityBytes,
                firstSegmentBase,
                continueBase,
                handle,
                -1,
                end,
                limitOffset,
                tally.skippedRanges(),
                report(
                        startNs,
                        false,
                        firstSegmentBase,
                        end,
                        (int) ((continueBase - firstSegmentBase) / capacityBytes) + 1),
                false,
                null);
    }

    private RecoveredLog finish(
            final LogSurvey.Survey found,
            final int tailIndex,
            final SegmentScan result,
            final Tail tail,
            final long startNs)
            throws IOException {
        final SegmentScanner scanner = found.scanner();
        final TreeMap<Long, Path> segments = found.segments();
        final List<Long> bases = found.structure().bases();
        final long tailBase = bases.get(tailIndex);
        final Path tailPath = segments.get(tailBase);
        final boolean clean = tail.outcome() == TailOutcome.CLEAN_END;
        final long nonZeroEnd = clean ? tail.endOffset() : scanner.dataEnd(tailPath, tail.endOffset(), capacityBytes);
        final long continueOffset = continueOffset(tail, tailPath, nonZeroEnd);
        final boolean newSegment =
                !clean && continueOffset == WriteLimits.NEXT_SEGMENT && !segments.containsKey(tailBase + capacityBytes);
        final long evidenceBytes = nonZeroEnd - tail.endOffset() + SkipRepair.evidenceBytes(tally);
        final boolean segmentDeferred = newSegment && !segmentFits(evidenceBytes);
        // Refused for space before anything is changed.
        RecoverySpace.require(
                directory,
                evidenceBytes,
                newSegment && !segmentDeferred ? capacityBytes : 0,
                inventory.temporaryBytes());
        beginChanges();
        // Skipped ranges first, while what proves them damage stands (a clean close, a tail not cut yet).
        skips().coverAll(scanner);
        // Cleared whatever the verdict: the log is about to be written again.
        final long end = tailBase + tail.endOffset();
        final boolean headerDeferred = clearCleanCloseOrDefer(segments, tailBase, end, clean);
        final int tailHandle = session.openFile(tailPath, false);
        if (clean) {
            final int nextHandle = repair().keepNextPrepared(segments, bases, tailIndex, tailBase + capacityBytes);
            return recovered(startNs, bases.get(0), tailBase, tailHandle, nextHandle, end, headerDeferred);
        }
        // Everything after the tail segment goes too: discarded first, newest first, so that a crash
        // part way never leaves the tail segment cut while later records are still there (the next
        // open would return them after a gap); positions stay unique, segments contiguous.
        final long discardedUpTo = tail.outcome() == TailOutcome.DISCARD_LATER_TOO && segments.lastKey() > tailBase
                ? repair().discardSegments(scanner, segments, tailBase + capacityBytes)
                : -1;
        tailRepair = repair().cutAndDiscard(
                        scanner,
                        tailPath,
                        tailBase,
                        tailHandle,
                        tail,
                        result,
                        nonZeroEnd,
                        continueOffset == WriteLimits.NEXT_SEGMENT ? capacityBytes : continueOffset);
        if (continueOffset != WriteLimits.NEXT_SEGMENT) {
            // Nothing at or past the limit was ever written: the log continues there, in this segment.
            final int nextHandle = repair().keepNextPrepared(segments, bases, tailIndex, tailBase + capacityBytes);
            return recovered(startNs, bases.get(0), tailBase, tailHandle, nextHandle, tailBase + continueOffset, false);
        }
        if (segmentDeferred && discardedUpTo < 0) {
            return openAtSegmentEnd(startNs, bases.get(0), tailBase, tailHandle);
        }
        requireTailRepaired(tailPath);
        session.closeFile(tailHandle);
        if (discardedUpTo >= 0) {
            return createLog(startNs, discardedUpTo, bases.get(0), false);
        }
        final long activeBase = tailBase + capacityBytes;
        final Path activePath = segments.get(activeBase);
        // An existing next segment is an unused prepared one: had it data, the rule would have judged
        // corruption.
        final int activeHandle =
                activePath != null ? session.openFile(activePath, false) : writer.prepareSegment(activeBase);
        final int nextHandle = repair().keepNextPrepared(segments, bases, tailIndex + 1, activeBase + capacityBytes);
        return recovered(
                startNs,
                bases.get(0),
                activeBase,
                activeHandle,
                nextHandle,
                activeBase + SegmentHeaderDescriptor.HEADER_LENGTH,
                false);
    }

    /**
     * Withdraws the clean close before new writes; true if that found no space and is left to the
     * running log. Copy on write (btrfs) needs new space to rewrite a header in place: on a full disk
     * the running log withdraws a clean close in the tail segment with its first header write, before
     * any frame ({@link RecoveredLog#headerDeferred}).
     */
    private boolean clearCleanCloseOrDefer(
            final TreeMap<Long, Path> segments, final long tailBase, final long endPosition, final boolean clean)
            throws IOException {
        try {
            repair().clearCleanClose(segments, tailBase, endPosition);
            return false;
        } catch (final IOException ex) {
            if (!clean
                    || !NoSpace.isNoSpace(ex)
                    || !repair().onlyTailRecordsCleanClose(segments, tailBase, endPosition)) {
                throw ex;
            }
            return true;
        }
    }

    /** The ranges readers step over: recovery's skips, and the range a deferred discard frame is to cover. */
    private long[] readerSkips(final PendingWrite repair) {
        final long[] skipped = tally.skippedRanges();
        final long[] skips = Arrays.copyOf(skipped, skipped.length + 2);
        skips[skipped.length] = repair.fromPosition();
        skips[skipped.length + 1] = repair.toPosition();
        return skips;
    }

    /** Where the log continues in the tail segment ({@link WriteLimits#continueOffset}), or the next segment. */
    private long continueOffset(final Tail tail, final Path tailPath, final long nonZeroEnd) throws IOException {
        return tail.outcome() == TailOutcome.CUT_TORN_TAIL
                ? WriteLimits.continueOffset(
                        tail.endOffset(),
                        nonZeroEnd,
                        SegmentHeaderDecoder.writeLimitOffset(FileReads.readHeader(tailPath)),
                        capacityBytes)
                : WriteLimits.NEXT_SEGMENT;
    }

    /** Room for a new segment, none for the discard frame before it: nothing to leave it to. */
    private void requireTailRepaired(final Path tailPath) throws IOException {
        if (tailRepair != null) {
            throw new FileSystemException(
                    tailPath.toString(),
                    null,
                    "No space left on device: the discard frame that ends the crashed segment could not be written;"
                            + " free space on this file system, then open the log again");
        }
    }

    private boolean segmentFits(final long evidenceBytes) throws IOException {
        return RecoverySpace.segmentFits(directory, evidenceBytes, capacityBytes, inventory.temporaryBytes());
    }

    /**
     * No room for the segment the log continues in: it opens at the end of its last one, and the
     * running log prepares the next once space appears (appends wait meanwhile).
     */
    private RecoveredLog openAtSegmentEnd(
            final long startNs, final long firstBase, final long lastBase, final int lastHandle) throws IOException {
        tally.finding("no room for a new segment (" + capacityBytes + " bytes) in " + directory
                + ": the log opens at the end of " + SegmentNames.segmentName(lastBase)
                + ", and appends wait until the next segment can be prepared (free space: truncateBefore, or other"
                + " files)");
        return recovered(startNs, firstBase, lastBase, lastHandle, -1, lastBase + capacityBytes, false);
    }

    private RecoveredLog recovered(
            final long startNs,
            final long firstBase,
            final long activeBase,
            final int activeHandle,
            final int nextHandle,
            final long endPosition,
            final boolean headerDeferred)
            throws IOException {
        final Path activePath = SegmentNames.segmentPath(directory, activeBase);
        // A deferred header gets the limit with the clean close's withdrawal, from the running log; so
        // does the header after a deferred tail repair, which the running log writes first.
        final boolean deferred = headerDeferred || tailRepair != null;
        final int limitOffset = deferred
                ? repair().writeLimitFor(FileReads.readHeader(activePath), endPosition - activeBase)
                : repair().recordWriteLimit(activeHandle, activePath, endPosition - activeBase);
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
                limitOffset,
                tailRepair == null ? tally.skippedRanges() : readerSkips(tailRepair),
                report,
                deferred,
                tailRepair);
    }

    private RecoveredLog createLog(final long startNs, final long base, final long firstBase, final boolean newLog)
            throws IOException {
        beginChanges();
        final int handle = writer.prepareSegment(base);
        final long end = base + SegmentHeaderDescriptor.HEADER_LENGTH;
        if (tally.recoveredEndPosition < 0) {
            tally.recoveredEndPosition = end;
            tally.provenDurablePosition = end;
        }
        final int limitOffset = repair().recordWriteLimit(
                        handle, SegmentNames.segmentPath(directory, base), SegmentHeaderDescriptor.HEADER_LENGTH);
        final RecoveryReport report =
                report(startNs, newLog, firstBase, end, (int) ((base - firstBase) / capacityBytes) + 1);
        return new RecoveredLog(
                logId,
                capacityBytes,
                firstBase,
                base,
                handle,
                -1,
                end,
                limitOffset,
                tally.skippedRanges(),
                report,
                false,
                null);
    }

    /**
     * Before recovery's first change to the directory: removes the leftover temporary files (and syncs
     * the directory) only then, so that a refusal while the log is only read changes nothing.
     */
    private void beginChanges() throws IOException {
        if (!temporariesRemoved) {
            temporariesRemoved = true;
            inventory.removeTemporaries();
        }
    }

    /**
     * Takes the log's identity, and refuses before anything is changed a configuration whose
     * records do not fit the log's segments (a read-only inspection does not refuse it).
     */
    private void identify(final SegmentInventory.Identity identity) {
        logId = identity.logId();
        capacityBytes = identity.capacityBytes();
        logConfig = config.forSegmentCapacity(capacityBytes);
        checkRecordFits(logConfig, capacityBytes);
        writer = new RecoveryWriter(directory, session, io, logId, capacityBytes, config.zeroFillSegments());
    }

    static void checkRecordFits(final WalConfig config, final int segmentCapacityBytes) {
        final int bufferCapacityBytes = Math.min(config.bufferCapacityBytes(), segmentCapacityBytes);
        final int maxFrameBytes = (bufferCapacityBytes - SegmentHeaderDescriptor.HEADER_LENGTH) / 2;
        if (FrameDescriptor.frameLength(config.maxRecordBytes()) > maxFrameBytes) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "invalid WalConfig setting maxRecordBytes=" + config.maxRecordBytes() + ": the existing log in "
                            + config.directory() + " has segments of " + segmentCapacityBytes
                            + " bytes, which limits records to " + (maxFrameBytes - FrameDescriptor.HEADER_LENGTH)
                            + " bytes; nothing was changed");
        }
    }

    private TailRepair repair() {
        return new TailRepair(session, io, writer, evidence, tally, capacityBytes);
    }

    private SkipRepair skips() {
        return new SkipRepair(session, io, writer, evidence, tally, capacityBytes);
    }

    private SuffixTruncationCompletion truncations() {
        return new SuffixTruncationCompletion(
                directory, io, writer, tally, new SegmentInventory.Identity(logId, capacityBytes), maxFrameBytes());
    }

    private int maxFrameBytes() {
        return FrameDescriptor.frameLength(logConfig.maxRecordBytes());
    }

    private RecoveryReport report(
            final long startNs,
            final boolean newLog,
            final long startPosition,
            final long endPosition,
            final int segmentCount) {
        return tally.report(
                newLog,
                logId,
                capacityBytes,
                segmentCount,
                startPosition,
                endPosition,
                evidence.files(),
                System.nanoTime() - startNs);
    }

    static long newLogId() {
        long id;
        do {
            id = new SecureRandom().nextLong();
        } while (id == 0);
        return id;
    }
}
