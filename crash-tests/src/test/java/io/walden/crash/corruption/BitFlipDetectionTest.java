package io.walden.crash.corruption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.crash.CrashBudget;
import io.walden.crash.corruption.BitFlipCampaign.Outcome;
import io.walden.crash.corruption.SegmentLayout.Area;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every single-bit flip at a stratified random sample of byte offsets of a sealed segment (all eight
 * bits of each offset, one flip per trial) is detected under the default policy: open fails with a
 * {@link io.walden.WalCorruptionException} naming the segment file and the offset of the damaged frame
 * (or of the header). The sample covers the segment header's fields and its unused bytes, frame
 * headers, payloads, alignment gaps, padding headers and bodies, and a short padding frame; see
 * {@link BitFlipCampaign} for exactly what each trial checks, including that records read back
 * byte-identical whenever open succeeds.
 *
 * <p>The sample's seed is printed; {@code -Dcrash.corruption.seed=N} replays a run. Under the soak
 * profile the campaigns keep sampling new offsets until their share of the soak time has passed.
 */
class BitFlipDetectionTest {
    /** System property overriding the seed. */
    static final String SEED_PROPERTY = "crash.corruption.seed";

    private static final long DEFAULT_SEED = 0x5EED_0B17_F11BL;
    /** Offsets of the sealed segment flipped on the FileChannel backend (times 8 bits). */
    private static final int NIO_OFFSETS = 1024;
    /** Offsets flipped on the io_uring backend (times 8 bits). */
    private static final int URING_OFFSETS = 256;
    /** Offsets of the newest segment's unwritten tail flipped. */
    private static final int TAIL_OFFSETS = 24;

    private static final double NIO_SOAK_SHARE = 0.14;
    private static final double URING_SOAK_SHARE = 0.04;
    private static final double TAIL_SOAK_SHARE = 0.02;

    private Path root;

    @BeforeEach
    void createRoot() throws IOException {
        root = ScratchDirectory.create("bitflips");
    }

    @AfterEach
    void deleteRoot() throws IOException {
        ScratchDirectory.delete(root);
    }

    @Test
    void everyBitFlipAtOverAThousandOffsetsOfASealedSegmentIsDetectedAndNamedOnNio() throws IOException {
        final long offsets = flipSealedSegment(CorruptionBackend.NIO, NIO_OFFSETS, NIO_SOAK_SHARE);
        assertTrue(offsets >= 1000, "at least 1,000 offsets must be checked, were " + offsets);
    }

    @Test
    void everyBitFlipAtSampledOffsetsOfASealedSegmentIsDetectedAndNamedOnUring() throws IOException {
        flipSealedSegment(CorruptionBackend.URING, URING_OFFSETS, URING_SOAK_SHARE);
    }

    @Test
    void bitFlipsInTheUnwrittenTailOfTheNewestSegmentAreDetectedAfterACleanCloseAndCutAfterACrash() throws IOException {
        final long seed = seed() + 1;
        final SampleLog log = SampleLog.create(root.resolve("pristine"), CorruptionBackend.NIO, seed);
        flipUnwrittenTail(log, "clean", seed, Outcome.DETECTED);
        flipUnwrittenTail(log.crashed(), "crashed", seed, Outcome.CUT_AS_TORN_TAIL);
    }

    private void flipUnwrittenTail(final SampleLog log, final String state, final long seed, final Outcome expected)
            throws IOException {
        try (BitFlipCampaign campaign = new BitFlipCampaign(
                log, root.resolve("work-" + state), CorruptionBackend.NIO, SampleLog.NEWEST_BASE, false)) {
            final long end = campaign.layout().regions().stream()
                    .filter(r -> r.area() == Area.UNWRITTEN)
                    .findFirst()
                    .orElseThrow()
                    .startOffset();
            final Random random = new Random(seed);
            // The log's end (its length field), the rest of its sector, the next sector, the last byte.
            final TreeSet<Long> offsets = new TreeSet<>(List.of(
                    end,
                    end + 2,
                    end + 4,
                    SampleLog.sectorCeiling(end + 1) - 1,
                    SampleLog.sectorCeiling(end + 1),
                    (long) SampleLog.SEGMENT_BYTES - 1));
            offsets.addAll(FlipSampler.sample(campaign.layout(), EnumSet.of(Area.UNWRITTEN), TAIL_OFFSETS, random));
            final long startNs = System.nanoTime();
            campaign.flipEveryBitAt(new ArrayList<>(offsets));
            final int rounds = soak(campaign, EnumSet.of(Area.UNWRITTEN), TAIL_OFFSETS, random, TAIL_SOAK_SHARE / 2);
            print("nio newest-segment tail, " + state, seed, campaign, offsets.size(), rounds, startNs);
            assertNoViolations(campaign);
            assertEquals(campaign.trials(), campaign.count(expected), "every flip: " + expected);
        }
    }

    /** Runs the sealed-segment campaign; returns the offsets sampled in the CI amount. */
    private long flipSealedSegment(final CorruptionBackend backend, final int targetOffsets, final double soakShare)
            throws IOException {
        final long seed = seed();
        final SampleLog log = SampleLog.create(root.resolve("pristine"), backend, seed);
        try (BitFlipCampaign campaign =
                new BitFlipCampaign(log, root.resolve("work"), backend, SampleLog.SEALED_BASE, true)) {
            final Map<Area, Long> present = campaign.layout().bytesPerArea();
            assertEquals(
                    EnumSet.complementOf(EnumSet.of(Area.UNWRITTEN)),
                    present.keySet(),
                    "the sealed segment holds every area but unwritten space: " + present);
            final Random random = new Random(seed);
            final Set<Area> areas = EnumSet.allOf(Area.class);
            final List<Long> offsets = FlipSampler.sample(campaign.layout(), areas, targetOffsets, random);
            assertTrue(offsets.size() >= targetOffsets, "sampled " + offsets.size());
            final long startNs = System.nanoTime();
            campaign.flipEveryBitAt(offsets);
            final int rounds = soak(campaign, areas, targetOffsets, random, soakShare);
            campaign.assertUnchanged("the last trial");
            print(
                    backend.name().toLowerCase(java.util.Locale.ROOT) + " sealed segment",
                    seed,
                    campaign,
                    offsets.size(),
                    rounds,
                    startNs);
            assertNoViolations(campaign);
            assertEquals(campaign.trials(), campaign.count(Outcome.DETECTED) + campaign.count(Outcome.HARMLESS));
            if (rounds == 0) {
                assertEquals(8L * offsets.size(), campaign.trials(), "one trial per bit of every sampled offset");
            }
            return offsets.size();
        }
    }

    private static int soak(
            final BitFlipCampaign campaign,
            final Set<Area> areas,
            final int targetOffsets,
            final Random random,
            final double share)
            throws IOException {
        final long deadlineNs = CrashBudget.soakDeadlineNanos(share);
        int rounds = 0;
        while (CrashBudget.soak() && System.nanoTime() - deadlineNs < 0) {
            campaign.flipEveryBitAt(FlipSampler.sample(campaign.layout(), areas, targetOffsets, random));
            rounds++;
        }
        return rounds;
    }

    private static void assertNoViolations(final BitFlipCampaign campaign) {
        assertEquals(
                0,
                campaign.violationCount(),
                () -> campaign.violationCount() + " violation(s), the first:\n  "
                        + String.join("\n  ", campaign.violations()));
    }

    private static void print(
            final String what,
            final long seed,
            final BitFlipCampaign campaign,
            final int offsets,
            final int soakRounds,
            final long startNs) {
        System.out.printf(
                "BITFLIPS %s: seed=%d (-D%s=%d replays) offsets=%d soak-rounds=%d flips=%d detected=%d cut=%d"
                        + " harmless=%d violations=%d in %.1f s; %s%n",
                what,
                seed,
                SEED_PROPERTY,
                seed,
                offsets,
                soakRounds,
                campaign.trials(),
                campaign.count(Outcome.DETECTED),
                campaign.count(Outcome.CUT_AS_TORN_TAIL),
                campaign.count(Outcome.HARMLESS),
                campaign.violationCount(),
                (System.nanoTime() - startNs) / 1e9,
                campaign.perArea());
    }

    private static long seed() {
        return Long.getLong(SEED_PROPERTY, DEFAULT_SEED);
    }
}
