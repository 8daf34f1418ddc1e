package io.walden.crash.corruption;

import io.walden.Durability;
import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalConfig;
import io.walden.WalCorruptionException;
import io.walden.crash.CrashTally;
import io.walden.format.FrameDecoder;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.segment.WriteLimits;
import io.walden.testing.LogImages;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Damages the newest segment of small logs, one damage per trial, in every state a user can find it:
 * closed cleanly, and crashed at several points (a copy of its files while open, after the appends so
 * far returned). Each trial reopens the log under the default policy and checks the outcome against
 * what the format itself proves, computed here from the image's bytes without Walden's recovery:
 *
 * <ul>
 *   <li>the <b>first damaged frame</b> F: the frame holding the first byte the damage changed (the
 *       log's end, if the byte lies after the last frame);
 *   <li>the <b>proven durable offset</b> P: the highest durable offset among the frames the damage
 *       left untouched (a frame proves that everything before its durable offset was synced before it
 *       was written).
 * </ul>
 *
 * <p>After a clean close every damage must be refused, naming the segment file and F's offset. After
 * a crash, damage at F below P must be refused the same way; damage at or past P is a torn tail: the
 * log must open, hold exactly the records before F, byte for byte, report the cut (file, offset, bytes)
 * with the cut bytes kept as evidence, continue in the next segment, and keep records appended there
 * through a reopen. A damage that changes no byte (zeroing zeros) must change nothing.
 *
 * <p>Every trial is tallied by damage kind, state and where F lies (below the proven offset of the
 * undamaged image, or past it), with the acknowledged {@code SYNCED} records a cut removed: those can
 * only lie past what the undamaged image proves (the last group commit before the crash, which no
 * later frame proves), or below it when the damage erased the very frames that proved them.
 *
 * <p><b>Threading:</b> used by one test thread.
 */
final class NewestSegmentCampaign implements AutoCloseable {
    /** Kinds of damage. */
    enum Kind {
        /** One bit flipped. */
        FLIP,
        /** A 512-byte sector zeroed. */
        SECTOR,
        /** A 4 KiB page zeroed. */
        PAGE,
        /** Everything from a byte offset to the end of the written range zeroed: a tear of any shape. */
        TEAR
    }

    /** A state of the log: its files, and what had been appended and synced. */
    record Image(String name, Path directory, boolean clean, List<Appended> records, long durablePosition) {}

    /**
     * A record appended before an image was taken.
     *
     * @param lsn its position.
     * @param payload its bytes.
     * @param durability its level.
     */
    record Appended(long lsn, byte[] payload, Durability durability) {
        long end() {
            return lsn + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(payload.length));
        }
    }

    /** A frame of the newest segment, read from an image. */
    private record Frame(long offset, int length, int durableOffset) {
        long alignedEnd() {
            return offset + FrameDescriptor.alignedLength(length);
        }
    }

    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final int SECTOR = 512;
    private static final int PAGE = 4096;
    private static final int MAX_LISTED_VIOLATIONS = 20;
    private static final int MAX_RECORD_BYTES = 16 * 1024;
    private static final long MARK_WAIT_NS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    private static final long MARK_POLL_NS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1);
    private static final String[] LOCATIONS = {"below", "past"};

    private final Path root;
    private final CorruptionBackend backend;
    private final int segmentBytes;
    private final long newestBase;
    private final List<Image> images = new ArrayList<>();
    private final Path work;
    // kind/state/location -> {tried, refused, cut, acknowledged SYNCED records cut}
    private final Map<String, long[]> tally = new TreeMap<>();
    private final List<String> violations = new ArrayList<>();
    private long violationCount;
    private long trials;
    private int appendsAfter;

    private NewestSegmentCampaign(
            final Path root, final CorruptionBackend backend, final int segmentBytes, final long newestBase) {
        this.root = root;
        this.backend = backend;
        this.segmentBytes = segmentBytes;
        this.newestBase = newestBase;
        this.work = root.resolve("work");
    }

    /**
     * Writes a log and takes its images: crashed after each of the given appends, and closed cleanly
     * after the last. The first segment is filled with large WRITTEN records, so that the damaged
     * segment is the second one; its records have the given sizes and levels.
     *
     * @param root an empty scratch directory.
     * @param backend the backend.
     * @param segmentBytes the segment capacity.
     * @param payloadSizes payload sizes of the newest segment's records.
     * @param levels their levels.
     * @param crashAfter after which of them (1-based counts) to take a crash image.
     * @param seed payload seed.
     * @return the campaign.
     * @throws IOException on an I/O failure.
     */
    static NewestSegmentCampaign write(
            final Path root,
            final CorruptionBackend backend,
            final int segmentBytes,
            final int[] payloadSizes,
            final Durability[] levels,
            final int[] crashAfter,
            final long seed)
            throws IOException {
        return write(root, backend, segmentBytes, payloadSizes, levels, crashAfter, seed, false);
    }

    /**
     * The same, with the damaged segment a recycled one if asked: the log fills two segments, and
     * retention frees the first as soon as the second is written (before a quarter of it is used, when
     * the third is prepared), so that the third, the damaged one, is made from the first one's file
     * (its header rewritten, its body the first segment's frames past its write limit).
     *
     * @param root an empty scratch directory.
     * @param backend the backend.
     * @param segmentBytes the segment capacity.
     * @param payloadSizes payload sizes of the newest segment's records.
     * @param levels their levels.
     * @param crashAfter after which of them (1-based counts) to take a crash image.
     * @param seed payload seed.
     * @param recycled whether the newest segment is to be a recycled one.
     * @return the campaign.
     * @throws IOException on an I/O failure.
     */
    static NewestSegmentCampaign write(
            final Path root,
            final CorruptionBackend backend,
            final int segmentBytes,
            final int[] payloadSizes,
            final Durability[] levels,
            final int[] crashAfter,
            final long seed,
            final boolean recycled)
            throws IOException {
        final long newestBase = (recycled ? 2L : 1L) * segmentBytes;
        final NewestSegmentCampaign campaign = new NewestSegmentCampaign(root, backend, segmentBytes, newestBase);
        final Path live = root.resolve("live");
        final Random random = new Random(seed);
        final List<Appended> appended = new ArrayList<>();
        try (Wal wal = Wal.open(config(live, backend, segmentBytes))) {
            // Fill the segments before the newest exactly, so that the next record is the newest
            // segment's first; when it is to be recycled, free the first segment once the log is in
            // the second (its file becomes the third).
            while (wal.tailPosition() < newestBase) {
                final long remaining = segmentBytes - wal.tailPosition() % segmentBytes;
                final int frameBytes = (int) Math.min(remaining, MAX_RECORD_BYTES / 2);
                wal.append(SampleLog.payload(random, frameBytes - FrameDescriptor.HEADER_LENGTH), Durability.WRITTEN);
                if (recycled && wal.startPosition() == 0 && wal.tailPosition() > segmentBytes + HEADER) {
                    wal.truncateBefore(segmentBytes);
                }
            }
            int crashIndex = 0;
            for (int i = 0; i < payloadSizes.length; i++) {
                final byte[] payload = SampleLog.payload(random, payloadSizes[i]);
                final long lsn = wal.append(payload, levels[i]);
                appended.add(new Appended(lsn, payload, levels[i]));
                if (crashIndex < crashAfter.length && crashAfter[crashIndex] == i + 1) {
                    final Path image = root.resolve("crash-after-" + (i + 1));
                    LogImages.crashImage(live, image);
                    campaign.images.add(new Image(
                            "crash after " + (i + 1), image, false, List.copyOf(appended), wal.durablePosition()));
                    crashIndex++;
                }
            }
            if (levels[levels.length - 1] == Durability.SYNCED) {
                // Idle after a sync: the log writes a durability mark that proves the last records. It
                // may already be written when this thread gets here (a loaded machine), and a slow
                // appender may have left an earlier pause with a mark of its own: wait for the mark in
                // the newest segment's header that covers the last record.
                final long end = wal.durablePosition();
                final Path newest = SegmentNames.segmentPath(live, end - 1 - ((end - 1) % segmentBytes));
                final long deadlineNs = System.nanoTime() + MARK_WAIT_NS;
                while (headerDurablePosition(newest) != end && System.nanoTime() - deadlineNs < 0) {
                    LockSupport.parkNanos(MARK_POLL_NS);
                }
                if (headerDurablePosition(newest) != end) {
                    throw new IllegalStateException("no durability mark for position " + end + " in " + newest
                            + " within " + MARK_WAIT_NS / 1_000_000 + " ms");
                }
                final long written = wal.writtenPosition();
                while (wal.writtenPosition() == written && System.nanoTime() - deadlineNs < 0) {
                    LockSupport.parkNanos(MARK_POLL_NS);
                }
                final Path image = root.resolve("crash-idle");
                LogImages.crashImage(live, image);
                campaign.images.add(new Image(
                        "crash after " + payloadSizes.length + ", idle",
                        image,
                        false,
                        List.copyOf(appended),
                        wal.durablePosition()));
            }
        }
        final Path clean = root.resolve("clean");
        ScratchDirectory.copyFiles(live, clean);
        campaign.images.add(new Image("clean", clean, true, List.copyOf(appended), Long.MAX_VALUE));
        for (final Appended record : appended) {
            if (record.lsn() < newestBase || record.end() > newestBase + segmentBytes) {
                throw new IllegalStateException("a record of the newest segment lies outside it: " + record.lsn());
            }
        }
        final ByteBuffer header =
                ByteBuffer.wrap(Files.readAllBytes(campaign.newest(clean))).order(ByteOrder.LITTLE_ENDIAN);
        if (SegmentHeaderDecoder.recycled(header) != recycled) {
            throw new IllegalStateException("the newest segment "
                    + campaign.newest(clean).getFileName() + " is " + (recycled ? "not " : "") + "a recycled one");
        }
        return campaign;
    }

    private static WalConfig config(final Path directory, final CorruptionBackend backend, final int segmentBytes) {
        return WalConfig.builder(directory)
                .backend(backend.create())
                .segmentCapacityBytes(segmentBytes)
                .bufferCapacityBytes(segmentBytes)
                .maxRecordBytes(MAX_RECORD_BYTES)
                .syncIntervalNs(0)
                .recycledSegmentsMax(2)
                .recoveryPolicy(RecoveryPolicy.FAIL)
                .build();
    }

    /** @return the images. */
    List<Image> images() {
        return images;
    }

    /**
     * The offset where the newest segment's frames end in an image.
     *
     * @param image the image.
     * @return the offset after the last frame.
     * @throws IOException on an I/O failure.
     */
    long writtenEnd(final Image image) throws IOException {
        final List<Frame> frames = frames(Files.readAllBytes(newest(image.directory())));
        return frames.isEmpty() ? HEADER : frames.get(frames.size() - 1).alignedEnd();
    }

    /**
     * The proven durable offset of an undamaged image.
     *
     * @param image the image.
     * @return the highest durable offset its newest segment's frames carry.
     * @throws IOException on an I/O failure.
     */
    long provenOffset(final Image image) throws IOException {
        final byte[] bytes = Files.readAllBytes(newest(image.directory()));
        return proven(frames(bytes), bytes, bytes);
    }

    /**
     * Flips every bit of each byte offset, one trial per bit.
     *
     * @param image the image.
     * @param offsets offsets in the newest segment.
     * @throws IOException on an I/O failure of the test itself.
     */
    void flipEveryBit(final Image image, final long[] offsets) throws IOException {
        final byte[] pristine = Files.readAllBytes(newest(image.directory()));
        for (final long offset : offsets) {
            for (int bit = 0; bit < Byte.SIZE; bit++) {
                final byte[] damaged = pristine.clone();
                damaged[(int) offset] ^= (byte) (1 << bit);
                trial(image, Kind.FLIP, pristine, damaged, "bit " + bit + " of offset " + offset);
            }
        }
    }

    /**
     * Zeroes each aligned block of a size that overlaps the written range, one trial per block.
     *
     * @param image the image.
     * @param kind {@link Kind#SECTOR} or {@link Kind#PAGE}.
     * @throws IOException on an I/O failure of the test itself.
     */
    void zeroEveryBlock(final Image image, final Kind kind) throws IOException {
        final int size = kind == Kind.SECTOR ? SECTOR : PAGE;
        final byte[] pristine = Files.readAllBytes(newest(image.directory()));
        final long end = writtenEnd(image);
        for (long offset = HEADER; offset < end; offset += size) {
            final byte[] damaged = pristine.clone();
            Arrays.fill(damaged, (int) offset, (int) (offset + size), (byte) 0);
            trial(image, kind, pristine, damaged, "zeroed " + size + " bytes at offset " + offset);
        }
    }

    /**
     * Tears the written range at random byte offsets past the proven offset: zeroes from each offset to
     * the end of the written range.
     *
     * @param image a crash image.
     * @param count how many tears.
     * @param random the offsets' source.
     * @throws IOException on an I/O failure of the test itself.
     */
    void tearAtRandomOffsets(final Image image, final int count, final Random random) throws IOException {
        final byte[] pristine = Files.readAllBytes(newest(image.directory()));
        final long from = provenOffset(image);
        final long end = writtenEnd(image);
        if (end <= from) {
            return;
        }
        for (int i = 0; i < count; i++) {
            final long offset = from + random.nextInt((int) (end - from));
            final byte[] damaged = pristine.clone();
            Arrays.fill(damaged, (int) offset, (int) end, (byte) 0);
            trial(image, Kind.TEAR, pristine, damaged, "torn from offset " + offset);
        }
    }

    private void trial(
            final Image image, final Kind kind, final byte[] pristine, final byte[] damaged, final String what)
            throws IOException {
        final int changed = Arrays.mismatch(pristine, damaged);
        final List<Frame> frames = frames(pristine);
        final long writtenEnd =
                frames.isEmpty() ? HEADER : frames.get(frames.size() - 1).alignedEnd();
        final Frame first = changed < 0 ? null : frameAt(frames, changed);
        final long damageOffset = changed < 0 ? -1 : first == null ? writtenEnd : first.offset();
        final long provenPristine = proven(frames, pristine, pristine);
        final long provenDamaged = proven(frames, pristine, damaged);
        final boolean refusedExpected = changed >= 0 && (image.clean() || damageOffset < provenDamaged);
        final String location = damageOffset < provenPristine ? LOCATIONS[0] : LOCATIONS[1];
        final long[] counts = tally.computeIfAbsent(kind + " " + state(image) + " " + location, key -> new long[4]);
        counts[0]++;
        trials++;
        count(kind);
        final String where = image.name() + ", " + what + " (first damaged frame at offset " + damageOffset
                + ", proven offset " + provenPristine + " undamaged, " + provenDamaged + " after the damage)";

        ScratchDirectory.copyFiles(image.directory(), work);
        Files.write(newest(work), damaged);
        final List<Appended> expectedRecords = changed < 0 ? image.records() : recordsBefore(image, damageOffset);
        try (Wal wal = Wal.open(config(work, backend, segmentBytes))) {
            if (refusedExpected) {
                violation(where + ": open succeeded, expected it refused: "
                        + wal.recoveryReport().summary());
                return;
            }
            final RecoveryReport report = wal.recoveryReport();
            final List<Appended> read = readAll(wal);
            if (!sameRecords(expectedRecords, read, image)) {
                violation(where + ": " + (read.size() < expectedRecords.size() ? "records lost" : "records differ")
                        + ": read " + read.size() + ", expected " + expectedRecords.size() + "; " + report.summary());
                return;
            }
            if (changed >= 0) {
                counts[2]++;
                final long cutSynced = image.records().stream()
                        .filter(r -> r.durability() == Durability.SYNCED && r.lsn() >= newestBase + damageOffset)
                        .count();
                counts[3] += cutSynced;
                if (cutSynced > 0 && location.equals(LOCATIONS[1])) {
                    CrashTally.UNPROVEN_SYNCED_CUT.addAndGet(cutSynced);
                }
                if (!checkCut(report, pristine, damaged, damageOffset, where)) {
                    return;
                }
                appendAfter(wal, continuePosition(damaged, damageOffset), where);
            } else if (report.recoveredEndPosition() != newestBase + writtenEnd) {
                violation(where + ": a damage that changed nothing moved the end: " + report.summary());
            }
        } catch (final WalCorruptionException ex) {
            if (!refusedExpected) {
                violation(where + ": refused, expected a cut: " + ex.getMessage());
                return;
            }
            if (!newest(work).equals(ex.file()) || ex.fileOffset() != damageOffset) {
                violation(where + ": refused naming " + ex.file() + " offset " + ex.fileOffset() + ", expected "
                        + newest(work).getFileName() + " offset " + damageOffset + ": " + ex.getMessage());
                return;
            }
            if (Files.exists(work.resolve(SegmentNames.EVIDENCE_DIRECTORY_NAME))
                    || !Arrays.equals(damaged, Files.readAllBytes(newest(work)))) {
                violation(where + ": a refused open changed the log");
                return;
            }
            counts[1]++;
        } catch (final RuntimeException ex) {
            violation(where + ": open failed with " + ex);
        }
    }

    /**
     * The state of an image, for the tally.
     *
     * @param image the image.
     * @return "clean", "crash" (right after an append returned) or "idle" (a crash after the log went
     *     idle long enough to write its durability mark).
     */
    static String state(final Image image) {
        return image.clean() ? "clean" : image.name().endsWith("idle") ? "idle" : "crash";
    }

    private boolean checkCut(
            final RecoveryReport report,
            final byte[] pristine,
            final byte[] damaged,
            final long damageOffset,
            final String where)
            throws IOException {
        final long staleFrom = staleFromOffset(damaged);
        final long dataEnd = SampleLog.dataEnd(Arrays.copyOf(damaged, (int) staleFrom), damageOffset);
        final boolean exact = report.recoveredEndPosition() == newestBase + damageOffset
                && !report.closedCleanly()
                && report.endPosition() == continuePosition(damaged, damageOffset)
                && report.tornTailBytesCut() == dataEnd - damageOffset
                && (dataEnd == damageOffset
                        ? report.tornTailFile() == null && report.evidence().isEmpty()
                        : report.tornTailOffset() == damageOffset
                                && report.evidence().size() == 1
                                && Arrays.equals(
                                        Arrays.copyOfRange(damaged, (int) damageOffset, (int) dataEnd),
                                        Files.readAllBytes(report.evidence().get(0))));
        if (!exact) {
            violation(where + ": the cut is not reported exactly (expected the records to end at "
                    + (newestBase + damageOffset) + ", " + (dataEnd - damageOffset) + " byte(s) cut and kept): "
                    + report.summary());
        }
        return exact;
    }

    /**
     * Where a recycled segment's bytes stop belonging to it (its write limit, past which they are
     * stale and read as zeros), or the capacity for a zero-filled segment.
     */
    private long staleFromOffset(final byte[] segment) {
        final ByteBuffer header = ByteBuffer.wrap(segment).order(ByteOrder.LITTLE_ENDIAN);
        return SegmentHeaderDecoder.recycled(header) ? SegmentHeaderDecoder.writeLimitOffset(header) : segmentBytes;
    }

    /**
     * Where the log continues after a cut: at the write limit the segment's header records, if nothing
     * at or past it is non-zero (below a recycled segment's limit: the bytes of this life), else in
     * the next segment ({@link WriteLimits#continueOffset}).
     */
    private long continuePosition(final byte[] damaged, final long cutOffset) {
        final ByteBuffer header = ByteBuffer.wrap(damaged).order(ByteOrder.LITTLE_ENDIAN);
        final long staleFrom = staleFromOffset(damaged);
        final long dataEnd = SampleLog.dataEnd(Arrays.copyOf(damaged, (int) staleFrom), cutOffset);
        final long offset = WriteLimits.continueOffset(
                cutOffset, dataEnd, SegmentHeaderDecoder.writeLimitOffset(header), segmentBytes);
        return offset == WriteLimits.NEXT_SEGMENT ? newestBase + segmentBytes + HEADER : newestBase + offset;
    }

    /** Every few cuts: an append lands where the log continues and survives a reopen. */
    private void appendAfter(final Wal wal, final long continuePosition, final String where) {
        if (appendsAfter++ % 8 != 0) {
            return;
        }
        final byte[] payload = SampleLog.payload(new Random(appendsAfter), 100);
        final long lsn = wal.append(payload, Durability.SYNCED);
        if (lsn != continuePosition) {
            violation(where + ": the first append after the cut went to " + lsn);
        }
    }

    private boolean sameRecords(final List<Appended> expected, final List<Appended> read, final Image image) {
        if (expected.size() != read.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (expected.get(i).lsn() != read.get(i).lsn()
                    || !Arrays.equals(expected.get(i).payload(), read.get(i).payload())) {
                return false;
            }
        }
        return true;
    }

    private List<Appended> recordsBefore(final Image image, final long offset) {
        final List<Appended> before = new ArrayList<>();
        for (final Appended record : image.records()) {
            if (record.lsn() < newestBase + offset) {
                before.add(record);
            }
        }
        return before;
    }

    private List<Appended> readAll(final Wal wal) {
        final List<Appended> read = new ArrayList<>();
        try (var reader = wal.reader(newestBase)) {
            reader.replay((buffer, offset, length, lsn) -> {
                if (lsn < newestBase + segmentBytes) {
                    final byte[] bytes = new byte[length];
                    buffer.getBytes(offset, bytes);
                    read.add(new Appended(lsn, bytes, Durability.WRITTEN));
                }
            });
        }
        return read;
    }

    /** The frames of a newest segment's bytes, walked from the first frame offset by their lengths. */
    private List<Frame> frames(final byte[] segment) {
        final ByteBuffer bytes = ByteBuffer.wrap(segment).order(ByteOrder.LITTLE_ENDIAN);
        // Each frame is checked against its position, so that the walk ends at the last frame of this
        // segment's life: a recycled one holds the frames of its earlier life after it.
        final FrameDecoder decoder = new FrameDecoder(SegmentHeaderDecoder.logId(bytes));
        final List<Frame> frames = new ArrayList<>();
        int offset = HEADER;
        while (offset + FrameDescriptor.SHORT_PADDING_LENGTH <= segment.length) {
            final int length = bytes.getInt(offset + FrameDescriptor.LENGTH_OFFSET);
            if (length == 0
                    || decoder.decode(bytes, offset, segment.length - offset, newestBase, offset, segment.length)
                            != FrameDecoder.Verdict.FRAME) {
                break;
            }
            final int durable = length >= FrameDescriptor.HEADER_LENGTH
                    ? bytes.getInt(offset + FrameDescriptor.DURABLE_OFFSET_OFFSET)
                    : 0;
            frames.add(new Frame(offset, length, durable));
            offset += FrameDescriptor.alignedLength(length);
        }
        return frames;
    }

    /** The frame whose aligned span holds an offset, or null past the last frame. */
    private static Frame frameAt(final List<Frame> frames, final long offset) {
        for (final Frame frame : frames) {
            if (offset < frame.alignedEnd()) {
                return offset >= frame.offset() ? frame : null;
            }
        }
        return null;
    }

    /**
     * The highest durable offset among the frames the damage did not touch (all, if no damage given),
     * or the durable position the segment header records, if higher (the damage never reaches the
     * header).
     */
    private long proven(final List<Frame> frames, final byte[] pristine, final byte[] damaged) {
        final long headerDurable = ByteBuffer.wrap(pristine)
                .order(ByteOrder.LITTLE_ENDIAN)
                .getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
        long proven = Math.max(HEADER, headerDurable == 0 ? 0 : headerDurable - newestBase);
        for (final Frame frame : frames) {
            final boolean untouched = Arrays.equals(
                    pristine, (int) frame.offset(), (int) frame.alignedEnd(), damaged, (int) frame.offset(), (int)
                            frame.alignedEnd());
            if (untouched) {
                proven = Math.max(proven, frame.durableOffset());
            }
        }
        return proven;
    }

    private Path newest(final Path directory) {
        return SegmentNames.segmentPath(directory, newestBase);
    }

    private static void count(final Kind kind) {
        switch (kind) {
            case FLIP -> CrashTally.FLIPS_NEWEST.incrementAndGet();
            case SECTOR -> CrashTally.SECTORS_NEWEST.incrementAndGet();
            case PAGE -> CrashTally.PAGES_NEWEST.incrementAndGet();
            case TEAR -> CrashTally.TEARS_NEWEST.incrementAndGet();
        }
    }

    private void violation(final String description) {
        violationCount++;
        CrashTally.VIOLATIONS.incrementAndGet();
        if (violations.size() < MAX_LISTED_VIOLATIONS) {
            violations.add(description);
        }
    }

    /** @return the trials run. */
    long trials() {
        return trials;
    }

    /** @return violations found. */
    long violationCount() {
        return violationCount;
    }

    /** @return the first violations, described. */
    List<String> violations() {
        return violations;
    }

    /**
     * The tally as table rows: damage kind, state, location, tried, refused, cut, acknowledged SYNCED
     * records cut.
     *
     * @return one line per row.
     */
    List<String> table() {
        final List<String> rows = new ArrayList<>();
        tally.forEach((key, counts) -> rows.add(String.format(
                "%-20s tried=%d refused=%d cut=%d syncedAcksCut=%d", key, counts[0], counts[1], counts[2], counts[3])));
        return rows;
    }

    /**
     * Adds this campaign's tally into a shared one.
     *
     * @param into the shared tally.
     */
    void addTo(final Map<String, long[]> into) {
        tally.forEach((key, counts) -> {
            final long[] total = into.computeIfAbsent(key, k -> new long[4]);
            for (int i = 0; i < counts.length; i++) {
                total[i] += counts[i];
            }
        });
    }

    @Override
    public void close() throws IOException {
        ScratchDirectory.delete(root);
    }

    /** @return the number of images. */
    int imageCount() {
        return images.size();
    }

    /**
     * The names of every file in an image's directory, for diagnosis.
     *
     * @param image the image.
     * @return the names.
     * @throws IOException on an I/O failure.
     */
    static List<String> files(final Image image) throws IOException {
        try (Stream<Path> files = Files.list(image.directory())) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }

    /** The durable position a segment's header records (0: none). */
    private static long headerDurablePosition(final Path segment) throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + 4)
                .order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(segment)) {
            while (header.hasRemaining() && channel.read(header, header.position()) >= 0) {
                // Fill.
            }
        }
        return header.getLong(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
    }
}
