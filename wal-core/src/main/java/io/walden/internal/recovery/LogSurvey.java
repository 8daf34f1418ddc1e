package io.walden.internal.recovery;

import io.walden.RecoveryPolicy;
import io.walden.WalConfig;
import io.walden.format.FrameDescriptor;
import io.walden.internal.segment.SuffixTruncationRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The look at a log directory that opening and inspecting share, changing nothing. Each step may
 * end the survey early; its {@link Stage} says where.
 *
 * <pre>
 *   list ─► other format? ─► identify ─► lost successor? ─► NO_SEGMENTS
 *                                                         └► pending truncation ─► TRUNCATION_PENDING (opening)
 *                                                            └► validate ─► NO_VALID_SEGMENT
 *                                                                         └► scan (LogScan) ─► SCANNED
 * </pre>
 *
 * <p><b>Threading:</b> the opening (or inspecting) thread.
 */
final class LogSurvey {
    enum Stage {
        NO_SEGMENTS,
        /** A suffix truncation's record says it began; an open completes it before anything else. */
        TRUNCATION_PENDING,
        /** No segment is structurally valid (only under {@link RecoveryPolicy#TRUNCATE}). */
        NO_VALID_SEGMENT,
        /** The segments were scanned to the tail; {@link Survey#decision()} says how the log ends. */
        SCANNED
    }

    /** What a survey found; owns the scanner, which a recovery goes on using for evidence, until closed. */
    record Survey(
            Stage stage,
            TreeMap<Long, Path> segments,
            SegmentInventory.Identity identity,
            SuffixTruncationRecord truncation,
            SegmentInventory.Structure structure,
            SegmentScanner scanner,
            LogScan.Decision decision)
            implements AutoCloseable {
        @Override
        public void close() {
            if (scanner != null) {
                scanner.close();
            }
        }
    }

    private final WalConfig config;
    private final SegmentInventory inventory;
    private final RecoveryTally tally;
    // What the last survey listed and identified before it ended or failed, for a report of a refusal.
    private TreeMap<Long, Path> listed = new TreeMap<>();
    private SegmentInventory.Identity identified;

    LogSurvey(final WalConfig config, final SegmentInventory inventory, final RecoveryTally tally) {
        this.config = config;
        this.inventory = inventory;
        this.tally = tally;
    }

    /** An open stops at a pending truncation; an inspection reads it and goes on. */
    Survey survey(final boolean stopAtTruncation, final LongSupplier newLogId, final TruncationReader truncations)
            throws IOException {
        final TreeMap<Long, Path> segments = inventory.list();
        listed = segments;
        identified = null;
        inventory.refuseOtherFormats(segments);
        if (segments.isEmpty()) {
            return new Survey(Stage.NO_SEGMENTS, segments, null, null, null, null, null);
        }
        final SegmentInventory.Identity identity = inventory.readIdentity(segments, newLogId);
        identified = identity;
        inventory.refuseLostSuccessor(segments);
        final SuffixTruncationRecord truncation = truncations.read(identity);
        if (truncation != null && stopAtTruncation) {
            return new Survey(Stage.TRUNCATION_PENDING, segments, identity, truncation, null, null, null);
        }
        final SegmentInventory.Structure structure = inventory.validate(segments, identity);
        if (structure.bases().isEmpty()) {
            return new Survey(Stage.NO_VALID_SEGMENT, segments, identity, truncation, structure, null, null);
        }
        final int maxFrameBytes = FrameDescriptor.frameLength(
                config.forSegmentCapacity(identity.capacityBytes()).maxRecordBytes());
        final SegmentScanner scanner = new SegmentScanner(identity.logId(), maxFrameBytes);
        try {
            final LogScan.Decision decision = new LogScan(identity.capacityBytes(), config.recoveryPolicy(), tally)
                    .scan(scanner, segments, structure);
            return new Survey(Stage.SCANNED, segments, identity, truncation, structure, scanner, decision);
        } catch (final IOException | RuntimeException | Error ex) {
            scanner.close();
            throw ex;
        }
    }

    /** The segments the last survey listed, also when it failed. */
    TreeMap<Long, Path> listed() {
        return listed;
    }

    /** The identity the last survey read, also when it failed after; null if it read none. */
    SegmentInventory.Identity identified() {
        return identified;
    }

    /** Reads the pending suffix-truncation record of the log with an identity, or null. */
    @FunctionalInterface
    interface TruncationReader {
        SuffixTruncationRecord read(SegmentInventory.Identity identity) throws IOException;
    }
}
