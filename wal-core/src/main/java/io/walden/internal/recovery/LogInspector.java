package io.walden.internal.recovery;

import io.walden.LogInspection;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.WalException;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.internal.segment.FileReads;
import io.walden.internal.segment.SuffixTruncationRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;

/**
 * One read-only inspection of a log directory ({@code Wal.inspect}): the {@link LogSurvey} an open
 * makes, under {@link RecoveryPolicy#FAIL}, and a report of what an open would find and do (a clean
 * end, a torn tail it would cut, or corruption it would refuse), changing nothing. {@link
 * LiveInspection} repeats it against a log that another process may be writing.
 *
 * <p><b>Threading:</b> the inspecting thread.
 */
final class LogInspector {
    private final Path directory;
    private final RecoveryTally tally = new RecoveryTally();
    private final RecoveryEvidence evidence;
    private final SegmentInventory inventory;
    private final LogSurvey survey;

    LogInspector(final Path directory) {
        final WalConfig config =
                WalConfig.builder(directory).recoveryPolicy(RecoveryPolicy.FAIL).build();
        this.directory = directory;
        this.evidence = new RecoveryEvidence(directory);
        this.inventory = new SegmentInventory(config, null, tally);
        this.survey = new LogSurvey(config, inventory, tally);
    }

    LogInspection inspect() throws IOException {
        final long startNs = System.nanoTime();
        if (!Files.isDirectory(directory)) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, directory + " is not a directory: no Walden log there");
        }
        try (LogSurvey.Survey found = survey.survey(false, LogRecovery::newLogId, this::readTruncation)) {
            if (found.stage() == LogSurvey.Stage.NO_SEGMENTS) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "no Walden log in " + directory + ": it holds no segment file (<20 digits>.wal)");
            }
            final int capacityBytes = found.identity().capacityBytes();
            final List<Long> bases = found.structure().bases();
            final long start = bases.get(0);
            final LogScan.Decision decision = found.decision();
            if (decision.tailIndex() < 0) {
                final long lastBase = bases.get(bases.size() - 1);
                final long lastEnd = lastBase + capacityBytes;
                tally.closedCleanly = SegmentHeaderDecoder.cleanEndPosition(
                                FileReads.readHeader(found.segments().get(lastBase)))
                        == lastEnd;
                return new LogInspection(
                        LogInspection.Verdict.CLEAN, report(startNs, start, lastEnd, bases.size()), null);
            }
            final long tailBase = bases.get(decision.tailIndex());
            final Path tailPath = found.segments().get(tailBase);
            final long endOffset = decision.tail().endOffset();
            final long dataEnd = found.scanner().dataEnd(tailPath, endOffset, capacityBytes);
            if (dataEnd > endOffset) {
                tally.tornTailFile = tailPath;
                tally.tornTailOffset = endOffset;
                tally.tornTailBytesCut = dataEnd - endOffset;
                tally.tornTailRecordsCut = decision.scan().recordsFrom(endOffset);
                tally.finding("torn tail in " + tailPath.getFileName() + " at offset " + endOffset + ": "
                        + tally.tornTailBytesCut + " byte(s) past everything proven durable, holding "
                        + tally.tornTailRecordsCut + " valid record(s); an open keeps them as evidence and cuts them");
            }
            return new LogInspection(
                    dataEnd > endOffset ? LogInspection.Verdict.TORN_TAIL : LogInspection.Verdict.CLEAN,
                    report(startNs, start, tailBase + endOffset, decision.tailIndex() + 1),
                    null);
        } catch (final WalCorruptionException ex) {
            final TreeMap<Long, Path> listed = survey.listed();
            return new LogInspection(
                    LogInspection.Verdict.CORRUPTION,
                    report(startNs, listed.isEmpty() ? -1 : listed.firstKey(), -1, listed.size()),
                    ex);
        }
    }

    /** Reads a pending truncation only to report it as a finding: an open completes it first. */
    private SuffixTruncationRecord readTruncation(final SegmentInventory.Identity identity) throws IOException {
        return new SuffixTruncationCompletion(directory, null, null, tally, identity, 0).read();
    }

    private RecoveryReport report(
            final long startNs, final long startPosition, final long endPosition, final int segmentCount) {
        final SegmentInventory.Identity identity = survey.identified();
        return tally.report(
                false,
                identity == null ? 0 : identity.logId(),
                identity == null ? 0 : identity.capacityBytes(),
                segmentCount,
                startPosition,
                endPosition,
                evidence.files(),
                System.nanoTime() - startNs);
    }
}
