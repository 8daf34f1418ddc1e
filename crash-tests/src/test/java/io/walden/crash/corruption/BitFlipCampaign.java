package io.walden.crash.corruption;

import io.walden.RecoveryPolicy;
import io.walden.RecoveryReport;
import io.walden.Wal;
import io.walden.WalCorruptionException;
import io.walden.crash.CrashTally;
import io.walden.crash.corruption.SampleLog.LogRecord;
import io.walden.crash.corruption.SegmentLayout.Area;
import io.walden.crash.corruption.SegmentLayout.Region;
import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Flips single bits in one segment file of a working copy of a {@link SampleLog}, one flip per trial,
 * reopens the log with the default policy ({@link RecoveryPolicy#FAIL}) and judges the outcome.
 *
 * <p>What a flip must lead to depends on where it lands:
 *
 * <ul>
 *   <li>Anywhere in a sealed segment (one that a segment with data follows): open fails with a
 *       {@link WalCorruptionException} for that file at the offset of the damaged frame (the header,
 *       offset 0, for the segment header), and the message names both. No byte of a sealed segment is
 *       harmless: the format covers every one of them (see {@link #HARMLESS_IN_SEALED_SEGMENT}).
 *   <li>In the never-written space of the newest segment ({@link Area#UNWRITTEN}): after a clean
 *       close, open fails naming the file and the log's end in it (no byte after a clean end may be
 *       non-zero); after a crash, the byte is cut as a torn tail and reported (tail file, tail offset
 *       at the log's end, bytes cut up to the flipped byte), every record intact.
 * </ul>
 *
 * <p>Whenever open succeeds, every record must read back byte-identical; altered data is the worst
 * violation and is reported as such. A trial restores the flipped byte when open failed (a failed
 * open must change nothing, which is checked: the directory listing every trial, every file's bytes
 * periodically), or the whole directory when open succeeded.
 *
 * <p><b>Threading:</b> not thread-safe; one campaign per test thread.
 */
final class BitFlipCampaign implements AutoCloseable {
    /**
     * Areas of a sealed segment where a flip is harmless by the format and may go undetected: none.
     * The segment header's fields are covered by its checksum and its unused bytes must be zero; every
     * frame's length, type, flags, position and payload by its checksum; the alignment gaps after
     * frames must be zero; padding bodies by the padding frame's checksum; a sealed segment has no
     * unwritten space.
     */
    static final java.util.Set<Area> HARMLESS_IN_SEALED_SEGMENT = java.util.EnumSet.noneOf(Area.class);

    private static final int FULL_COMPARE_EVERY_TRIALS = 256;
    private static final int MAX_LISTED_VIOLATIONS = 40;

    /** How one trial ended. */
    enum Outcome {
        /** Open failed, naming the right file and offset. */
        DETECTED,
        /** Open succeeded, cut the flipped byte as a torn tail and reported it; every record intact. */
        CUT_AS_TORN_TAIL,
        /** Open succeeded in an area that is harmless by the format; every record intact. */
        HARMLESS,
        /** A contract violation: see {@link #violations()}. */
        VIOLATION
    }

    private final SampleLog pristine;
    private final SampleLog work;
    private final CorruptionBackend backend;
    private final long segmentBase;
    private final boolean sealed;
    private final Path file;
    private final SegmentLayout layout;
    private final Map<String, byte[]> pristineFiles = new TreeMap<>();
    private final byte[] segmentBytes;
    private final Map<Area, long[]> tallyByArea = new EnumMap<>(Area.class);
    private final long[] tallyByOutcome = new long[Outcome.values().length];
    private final List<String> violations = new ArrayList<>();
    private long violationCount;
    private long trials;
    private FileChannel channel;

    /**
     * Prepares a campaign on a segment of a working copy.
     *
     * @param pristine the undamaged log; never modified.
     * @param workDirectory where the working copy goes.
     * @param backend the backend to reopen with.
     * @param segmentBase base position of the segment to damage.
     * @param sealed whether a segment with data follows it (else it is the newest one).
     * @throws IOException on an I/O failure.
     */
    BitFlipCampaign(
            final SampleLog pristine,
            final Path workDirectory,
            final CorruptionBackend backend,
            final long segmentBase,
            final boolean sealed)
            throws IOException {
        this.pristine = pristine;
        this.work = pristine.copyTo(workDirectory);
        this.backend = backend;
        this.segmentBase = segmentBase;
        this.sealed = sealed;
        this.file = work.segment(segmentBase);
        try (Stream<Path> files = Files.list(pristine.directory())) {
            for (final Path path : (Iterable<Path>) files::iterator) {
                if (!path.getFileName().toString().equals(SegmentNames.LOCK_FILE_NAME)) {
                    pristineFiles.put(path.getFileName().toString(), Files.readAllBytes(path));
                }
            }
        }
        this.segmentBytes = pristineFiles.get(file.getFileName().toString());
        this.layout = SegmentLayout.parse(segmentBytes, segmentBase, pristine.recordsIn(segmentBase));
        this.channel = openChannel();
    }

    /** @return the layout of the damaged segment. */
    SegmentLayout layout() {
        return layout;
    }

    /**
     * Flips every bit of each offset, one flip per trial.
     *
     * @param offsets byte offsets in the segment.
     * @throws IOException on an I/O failure of the test itself.
     */
    void flipEveryBitAt(final List<Long> offsets) throws IOException {
        for (final long offset : offsets) {
            tallyByArea.computeIfAbsent(layout.regionAt(offset).area(), a -> new long[2])[0]++;
            for (int bit = 0; bit < Byte.SIZE; bit++) {
                flip(offset, bit);
            }
        }
    }

    private void flip(final long offset, final int bit) throws IOException {
        final Region region = layout.regionAt(offset);
        final String where = "offset " + offset + " bit " + bit + " of " + file.getFileName() + " (" + region.area()
                + (region.frameOffset() >= 0 ? " of the frame at offset " + region.frameOffset() : "") + ")";
        final byte original = segmentBytes[(int) offset];
        writeByte(offset, (byte) (original ^ (1 << bit)));
        Outcome outcome;
        boolean restoreAll = false;
        try (Wal wal = Wal.open(SampleLog.config(work.directory(), backend, RecoveryPolicy.FAIL))) {
            restoreAll = true;
            outcome = judgeOpened(wal, offset, region, where);
        } catch (final WalCorruptionException ex) {
            outcome = judgeRefused(ex, region, where);
        } catch (final RuntimeException ex) {
            restoreAll = true;
            outcome = violation(where + ": open failed with " + ex + " instead of a WalCorruptionException");
        }
        if (!restoreAll && !unchangedListing()) {
            restoreAll = true;
            outcome = violation(where + ": the failed open added or removed files in the log directory");
        }
        trials++;
        tallyByOutcome[outcome.ordinal()]++;
        if (outcome == Outcome.DETECTED) {
            tallyByArea.get(region.area())[1]++;
        }
        CrashTally.BITFLIPS.incrementAndGet();
        if (restoreAll) {
            channel.close();
            ScratchDirectory.copyFiles(pristine.directory(), work.directory());
            channel = openChannel();
        } else {
            writeByte(offset, original);
            if (trials % FULL_COMPARE_EVERY_TRIALS == 0) {
                assertUnchanged(where);
            }
        }
    }

    private Outcome judgeOpened(final Wal wal, final long offset, final Region region, final String where) {
        final List<LogRecord> read = SampleLog.readAll(wal);
        if (!read.equals(pristine.records())) {
            return violation(where + ": SILENTLY ALTERED DATA: open succeeded and the records read back differ ("
                    + read.size() + " read, " + pristine.records().size() + " written; first difference at "
                    + firstDifference(read) + ")");
        }
        if (sealed) {
            return HARMLESS_IN_SEALED_SEGMENT.contains(region.area())
                    ? Outcome.HARMLESS
                    : violation(where + ": flip NOT DETECTED (open succeeded, records intact): "
                            + wal.recoveryReport().summary());
        }
        final RecoveryReport report = wal.recoveryReport();
        final long end = region.startOffset();
        final boolean reported = region.area() == Area.UNWRITTEN
                && file.equals(report.tornTailFile())
                && report.tornTailOffset() == end
                && report.tornTailBytesCut() == offset + 1 - end
                && report.recoveredEndPosition() == segmentBase + end
                && report.records() == pristine.records().size();
        return reported
                ? Outcome.CUT_AS_TORN_TAIL
                : violation(
                        where + ": open succeeded without reporting the cut torn tail exactly: " + report.summary());
    }

    private Outcome judgeRefused(final WalCorruptionException ex, final Region region, final String where) {
        final long expectedOffset = region.area() == Area.UNWRITTEN ? region.startOffset() : region.frameOffset();
        final String message = ex.getMessage();
        if (!file.equals(ex.file())
                || ex.fileOffset() != expectedOffset
                || !message.contains(file.getFileName().toString())
                || !message.contains("at offset " + expectedOffset)) {
            return violation(where + ": detected, but not named as " + file.getFileName() + " at offset "
                    + expectedOffset + ": " + message);
        }
        return Outcome.DETECTED;
    }

    private Outcome violation(final String description) {
        violationCount++;
        CrashTally.VIOLATIONS.incrementAndGet();
        if (violations.size() < MAX_LISTED_VIOLATIONS) {
            violations.add(description);
        }
        return Outcome.VIOLATION;
    }

    private String firstDifference(final List<LogRecord> read) {
        final List<LogRecord> written = pristine.records();
        for (int i = 0; i < Math.min(read.size(), written.size()); i++) {
            if (!read.get(i).equals(written.get(i))) {
                return "written " + written.get(i) + ", read " + read.get(i);
            }
        }
        return "record " + Math.min(read.size(), written.size());
    }

    private boolean unchangedListing() throws IOException {
        try (Stream<Path> files = Files.list(work.directory())) {
            return Arrays.equals(
                    files.map(p -> p.getFileName().toString())
                            .filter(name -> !name.equals(SegmentNames.LOCK_FILE_NAME))
                            .sorted()
                            .toArray(),
                    pristineFiles.keySet().toArray());
        }
    }

    /**
     * Checks that the working copy equals the pristine log byte for byte.
     *
     * @param after what was done last, for the message.
     * @throws IOException on an I/O failure.
     */
    void assertUnchanged(final String after) throws IOException {
        if (!unchangedListing()) {
            throw new AssertionError("a failed open changed the files of the log, after " + after);
        }
        for (final Map.Entry<String, byte[]> entry : pristineFiles.entrySet()) {
            if (!Arrays.equals(
                    entry.getValue(), Files.readAllBytes(work.directory().resolve(entry.getKey())))) {
                throw new AssertionError("a failed open changed " + entry.getKey() + ", after " + after);
            }
        }
    }

    /** @return flips tried. */
    long trials() {
        return trials;
    }

    /**
     * Trials that ended a given way.
     *
     * @param outcome the outcome.
     * @return the count.
     */
    long count(final Outcome outcome) {
        return tallyByOutcome[outcome.ordinal()];
    }

    /** @return violations found (all of them, listed or not). */
    long violationCount() {
        return violationCount;
    }

    /** @return the first violations, described. */
    List<String> violations() {
        return violations;
    }

    /** @return offsets sampled and flips detected per area, e.g. {@code PAYLOAD 700/5600}. */
    String perArea() {
        final StringBuilder text = new StringBuilder();
        tallyByArea.forEach((area, tally) -> text.append(text.length() == 0 ? "" : ", ")
                .append(area)
                .append(' ')
                .append(tally[0])
                .append(" offsets/")
                .append(tally[1])
                .append(" detected"));
        return text.toString();
    }

    private FileChannel openChannel() throws IOException {
        return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    private void writeByte(final long offset, final byte value) throws IOException {
        final ByteBuffer one = ByteBuffer.allocate(1).put(0, value);
        if (channel.write(one, offset) != 1) {
            throw new IOException("cannot write offset " + offset + " of " + file);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
