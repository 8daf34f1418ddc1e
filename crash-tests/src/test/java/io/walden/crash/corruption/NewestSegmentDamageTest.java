package io.walden.crash.corruption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.crash.CrashBudget;
import io.walden.crash.corruption.NewestSegmentCampaign.Image;
import io.walden.crash.corruption.NewestSegmentCampaign.Kind;
import java.io.IOException;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Damage to the newest segment, where a crash can tear writes, in every state: closed cleanly, and
 * crashed at several points of a workload that mixes {@code SYNCED} and {@code WRITTEN} appends (so
 * that part of the segment is proven durable by later frames and part is not). See {@link
 * NewestSegmentCampaign} for what each trial checks.
 *
 * <ul>
 *   <li>A small log: every bit of every byte of the newest segment's written range, in every image.
 *   <li>A larger log: every 512-byte sector and every 4 KiB page of the written range zeroed, tears at
 *       random byte offsets past the proven offset, and flips at sampled offsets; on both backends.
 * </ul>
 *
 * <p>The seed is fixed ({@code -Dcrash.newest.seed=N} replays another); under the soak profile the
 * larger log is rewritten with new seeds until the campaign's share of the soak time has passed.
 */
class NewestSegmentDamageTest {
    private static final String SEED_PROPERTY = "crash.newest.seed";
    private static final long DEFAULT_SEED = 0x0E57_5E6_0001L;
    private static final int SEGMENT_BYTES = 64 * 1024;
    private static final int SAMPLED_FLIP_OFFSETS = 40;
    private static final int TEARS_PER_IMAGE = 10;
    private static final double SOAK_SHARE = 0.05;

    private static final Durability S = Durability.SYNCED;
    private static final Durability W = Durability.WRITTEN;

    private static final Map<String, long[]> TOTAL = new TreeMap<>();

    @AfterAll
    static void printTable() {
        System.out.println("NEWEST-SEGMENT damage kind / state / where the first damaged frame lies (below or"
                + " past the offset the undamaged image proves durable):");
        TOTAL.forEach((key, counts) -> System.out.printf(
                "NEWEST %-20s tried=%d refused=%d cut=%d syncedAcksCut=%d%n",
                key, counts[0], counts[1], counts[2], counts[3]));
    }

    /**
     * The same in a recycled newest segment (made from a file retention freed, its body the frames of
     * that file's earlier life past the write limit): every bit of every written byte, in every image,
     * is refused below the proven offset and cut past it, never taken for a stale byte or the reverse;
     * a cut continues at the segment's write limit.
     */
    @Test
    void everyBitOfEveryWrittenFrameOfARecycledNewestSegmentIsRefusedBelowTheProvenOffsetAndCutPastIt()
            throws IOException {
        flipEveryBitOfASmallNewestSegment("newest-recycled", "nio recycled: every bit", true);
    }

    @Test
    void everyBitOfEveryWrittenFrameOfASmallNewestSegmentIsRefusedBelowTheProvenOffsetAndCutPastIt()
            throws IOException {
        flipEveryBitOfASmallNewestSegment("newest-small", "nio small: every bit", false);
        assertCovered(Kind.FLIP);
    }

    /** Every bit of every written byte of a small newest segment, in every image of its log. */
    private static void flipEveryBitOfASmallNewestSegment(final String name, final String label, final boolean recycled)
            throws IOException {
        final long seed = seed();
        try (NewestSegmentCampaign campaign = NewestSegmentCampaign.write(
                ScratchDirectory.create(name),
                CorruptionBackend.NIO,
                SEGMENT_BYTES,
                new int[] {24, 9, 40, 0, 17, 31, 3, 26},
                new Durability[] {S, S, W, S, W, S, W, S},
                new int[] {3, 6, 8},
                seed,
                recycled)) {
            for (final Image image : campaign.images()) {
                checkProofNeverOverclaims(campaign, image);
                final long end = campaign.writtenEnd(image);
                final long[] offsets = new long[(int) (end - 4096)];
                for (int i = 0; i < offsets.length; i++) {
                    offsets[i] = 4096 + i;
                }
                campaign.flipEveryBit(image, offsets);
            }
            finish(campaign, label, seed);
        }
    }

    @Test
    void everySectorAndPageOfALargerNewestSegmentAndTearsAtAnyOffsetOnNio() throws IOException {
        large(CorruptionBackend.NIO, seed(), true);
        final long deadlineNs = CrashBudget.soakDeadlineNanos(SOAK_SHARE);
        for (long soakSeed = seed() + 1; CrashBudget.soak() && System.nanoTime() - deadlineNs < 0; soakSeed++) {
            large(CorruptionBackend.NIO, soakSeed, true);
        }
        assertCovered(Kind.SECTOR);
        assertCovered(Kind.PAGE);
        assertTrue(
                TOTAL.keySet().stream().anyMatch(key -> key.startsWith("TEAR crash past")), TOTAL.keySet()::toString);
    }

    @Test
    void everySectorAndPageOfALargerNewestSegmentAndTearsAtAnyOffsetOnUring() throws IOException {
        large(CorruptionBackend.URING, seed() + 100, false);
    }

    private static void large(final CorruptionBackend backend, final long seed, final boolean flips)
            throws IOException {
        final Random random = new Random(seed);
        final int count = 14;
        final int[] sizes = new int[count];
        final Durability[] levels = new Durability[count];
        for (int i = 0; i < count; i++) {
            sizes[i] = 300 + random.nextInt(2200);
            levels[i] = random.nextInt(3) == 0 ? W : S;
        }
        levels[count - 1] = S;
        try (NewestSegmentCampaign campaign = NewestSegmentCampaign.write(
                ScratchDirectory.create("newest-large"),
                backend,
                SEGMENT_BYTES,
                sizes,
                levels,
                new int[] {1 + random.nextInt(4), 5 + random.nextInt(4), 9 + random.nextInt(5)},
                seed)) {
            for (final Image image : campaign.images()) {
                checkProofNeverOverclaims(campaign, image);
                campaign.zeroEveryBlock(image, Kind.SECTOR);
                campaign.zeroEveryBlock(image, Kind.PAGE);
                if (!image.clean()) {
                    campaign.tearAtRandomOffsets(image, TEARS_PER_IMAGE, random);
                }
                if (flips) {
                    final long end = campaign.writtenEnd(image);
                    final long[] offsets = new long[SAMPLED_FLIP_OFFSETS];
                    for (int i = 0; i < offsets.length; i++) {
                        offsets[i] = 4096 + random.nextInt((int) (end - 4096));
                    }
                    campaign.flipEveryBit(image, offsets);
                }
            }
            finish(campaign, backend.name().toLowerCase(java.util.Locale.ROOT) + " larger", seed);
        }
    }

    /** A frame never claims more durable than the log was when the image was taken. */
    private static void checkProofNeverOverclaims(final NewestSegmentCampaign campaign, final Image image)
            throws IOException {
        if (!image.clean()) {
            final long proven = SEGMENT_BYTES + campaign.provenOffset(image);
            assertTrue(
                    proven <= image.durablePosition(),
                    image.name() + ": frames prove " + proven + " durable, but the log was durable only to "
                            + image.durablePosition() + " when the image was taken; files "
                            + NewestSegmentCampaign.files(image));
        }
    }

    private static void finish(final NewestSegmentCampaign campaign, final String what, final long seed) {
        System.out.printf(
                "NEWEST %s: seed=%d (-D%s=%d replays) images=%d trials=%d violations=%d%n",
                what, seed, SEED_PROPERTY, seed, campaign.imageCount(), campaign.trials(), campaign.violationCount());
        campaign.addTo(TOTAL);
        assertEquals(
                0,
                campaign.violationCount(),
                () -> campaign.violationCount() + " violation(s), the first:\n  "
                        + String.join("\n  ", campaign.violations()));
    }

    /** The clean image refused every damage, and the crash images both refused (below) and cut (past). */
    private static void assertCovered(final Kind kind) {
        final long[] cleanRefused = TOTAL.getOrDefault(kind + " clean below", new long[4]);
        final long[] crashBelow = TOTAL.getOrDefault(kind + " crash below", new long[4]);
        final long[] crashPast = TOTAL.getOrDefault(kind + " crash past", new long[4]);
        assertTrue(cleanRefused[1] > 0, kind + ": the clean image refused damage");
        assertTrue(crashBelow[1] > 0, kind + ": a crash image refused damage below its proven offset");
        assertTrue(crashPast[2] > 0, kind + ": a crash image cut damage past its proven offset");
        // After the log went idle, its durability mark (in the segment header) proves every
        // acknowledged record: damage to any of them is refused, even damage that erases the frames
        // after them, and nothing acknowledged is ever cut.
        final long[] idleBelow = TOTAL.getOrDefault(kind + " idle below", new long[4]);
        final long[] idlePast = TOTAL.getOrDefault(kind + " idle past", new long[4]);
        assertTrue(idleBelow[1] > 0, kind + ": an idle crash image refused damage");
        assertEquals(0, idleBelow[3] + idlePast[3], kind + ": an idle crash image lost no acknowledged record");
    }

    private static long seed() {
        return Long.getLong(SEED_PROPERTY, DEFAULT_SEED);
    }
}
