package io.walden.bench.harness;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The side-by-side table of the {@code groups} command: one row per store, then each figure divided by
 * {@code walden-groups}' own, where both were measured.
 *
 * <p><b>Threading:</b> stateless.
 */
final class GroupsTable {
    private static final String[] HEADERS = {
        "entries/s",
        "batches/s",
        "p50 us",
        "p99 us",
        "p99.9 us",
        "dev B/B",
        "heap B/grp",
        "RSS B/grp",
        "JVM thr",
        "OS thr",
        "open ms",
        "reopen ms"
    };

    private static final List<ToDoubleFunction<GroupsResult>> FIGURES = List.of(
            GroupsResult::entriesPerS,
            GroupsResult::batchesPerS,
            GroupsResult::p50Us,
            GroupsResult::p99Us,
            GroupsResult::p999Us,
            GroupsResult::deviceBytesPerPayloadByte,
            GroupsResult::heapBytesPerGroup,
            GroupsResult::residentBytesPerGroup,
            GroupsResult::jvmThreads,
            GroupsResult::osThreads,
            GroupsResult::openMs,
            GroupsResult::reopenMs);

    private GroupsTable() {}

    /**
     * Prints the table.
     *
     * @param out where.
     * @param results one per store, in the order they ran.
     */
    static void print(final PrintStream out, final List<GroupsResult> results) {
        out.println();
        out.print(String.format(Locale.ROOT, "%-18s", "store"));
        for (final String header : HEADERS) {
            out.print(String.format(Locale.ROOT, " %11s", header));
        }
        out.println();
        for (final GroupsResult result : results) {
            out.print(String.format(Locale.ROOT, "%-18s", result.store()));
            if (!result.measured()) {
                out.println(" " + result.note());
                continue;
            }
            for (final ToDoubleFunction<GroupsResult> figure : FIGURES) {
                out.print(String.format(Locale.ROOT, " %11s", Report.decimal(figure.applyAsDouble(result))));
            }
            out.println();
        }
        final GroupsResult reference = results.stream()
                .filter(r -> r.store().equals(GroupStoreKind.WALDEN_GROUPS.id) && r.measured())
                .findFirst()
                .orElse(null);
        if (reference == null || results.size() < 2) {
            return;
        }
        out.println();
        out.println("each figure divided by walden-groups' (entries/s and batches/s below 1.00x: fewer than"
                + " walden-groups; latency, device bytes, memory, threads and times above 1.00x: more):");
        for (final GroupsResult result : results) {
            if (!result.measured()) {
                continue;
            }
            out.print(String.format(Locale.ROOT, "%-18s", result.store()));
            for (final ToDoubleFunction<GroupsResult> figure : FIGURES) {
                out.print(String.format(
                        Locale.ROOT,
                        " %11s",
                        Report.ratio(figure.applyAsDouble(result) / figure.applyAsDouble(reference))));
            }
            out.println();
        }
    }
}
