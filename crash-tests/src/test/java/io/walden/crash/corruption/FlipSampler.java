package io.walden.crash.corruption;

import io.walden.crash.corruption.SegmentLayout.Area;
import io.walden.crash.corruption.SegmentLayout.Region;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * Picks the byte offsets of a segment whose bits a campaign flips: a stratified sample, so that
 * every area of the file is covered however small it is, topped up with offsets drawn uniformly
 * over the file.
 *
 * <p><b>Threading:</b> stateless.
 */
final class FlipSampler {
    private FlipSampler() {}

    /**
     * Samples distinct byte offsets.
     *
     * @param layout the segment's layout.
     * @param areas the areas to sample from.
     * @param targetOffsets how many offsets to return at least (fewer only if the areas hold fewer
     *     bytes).
     * @param random the source of randomness (seeded by the caller, who prints the seed).
     * @return the offsets, ascending.
     */
    static List<Long> sample(
            final SegmentLayout layout, final Set<Area> areas, final int targetOffsets, final Random random) {
        final Map<Area, List<Region>> regionsByArea = new EnumMap<>(Area.class);
        for (final Region region : layout.regions()) {
            if (areas.contains(region.area())) {
                regionsByArea
                        .computeIfAbsent(region.area(), a -> new ArrayList<>())
                        .add(region);
            }
        }
        final TreeSet<Long> offsets = new TreeSet<>();
        final int perArea = Math.max(1, targetOffsets / 8);
        long totalBytes = 0;
        for (final List<Region> regions : regionsByArea.values()) {
            final long areaBytes =
                    regions.stream().mapToLong(Region::lengthBytes).sum();
            totalBytes += areaBytes;
            final TreeSet<Long> picked = new TreeSet<>();
            while (picked.size() < Math.min(perArea, areaBytes)) {
                picked.add(offsetAt(regions, (long) (random.nextDouble() * areaBytes)));
            }
            offsets.addAll(picked);
        }
        final List<Region> all = new ArrayList<>();
        regionsByArea.values().forEach(all::addAll);
        all.sort((a, b) -> Long.compare(a.startOffset(), b.startOffset()));
        while (offsets.size() < Math.min(targetOffsets, totalBytes)) {
            offsets.add(offsetAt(all, (long) (random.nextDouble() * totalBytes)));
        }
        return new ArrayList<>(offsets);
    }

    /** The offset of the {@code index}-th byte of a list of regions. */
    private static long offsetAt(final List<Region> regions, final long index) {
        long remaining = index;
        for (final Region region : regions) {
            if (remaining < region.lengthBytes()) {
                return region.startOffset() + remaining;
            }
            remaining -= region.lengthBytes();
        }
        throw new IllegalArgumentException("index " + index + " beyond the regions");
    }
}
