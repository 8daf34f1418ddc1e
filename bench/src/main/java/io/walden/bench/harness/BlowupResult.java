package io.walden.bench.harness;

import java.util.HashMap;
import java.util.Map;

/**
 * How one memory blow-up run ended (see {@link BlowupCommand}).
 *
 * @param system {@code asyncfilechannel-force} or {@code walden}.
 * @param backend the pool or Walden backend.
 * @param outcome {@code completed}, the OutOfMemoryError, or why it was stopped.
 * @param elapsedMs time until the last status line.
 * @param submitted records submitted (AsynchronousFileChannel) or appended (Walden).
 * @param completed writes completed (AsynchronousFileChannel) or records written (Walden).
 * @param heapPeakMb peak heap in use, MiB.
 * @param directPeakMb peak direct buffer memory, MiB.
 * @param threadsPeak most live threads.
 * @param heapMaxMb the JVM's heap limit, MiB.
 */
public record BlowupResult(
        String system,
        String backend,
        String outcome,
        long elapsedMs,
        long submitted,
        long completed,
        double heapPeakMb,
        double directPeakMb,
        int threadsPeak,
        double heapMaxMb) {

    /**
     * Reads a run's output: the last status line and, if the JVM died of it, the OutOfMemoryError.
     *
     * @param system the system.
     * @param backend the backend.
     * @param lastStatus the last {@link BlowupCommand#STATUS_PREFIX} line without the prefix, or null.
     * @param finalCompleted Walden's written records from its final line, or -1.
     * @param deathLine the JVM's "Terminating due to ..." line, or null.
     * @param exitStatus the child's exit status.
     * @return the result.
     */
    static BlowupResult parse(
            final String system,
            final String backend,
            final String lastStatus,
            final long finalCompleted,
            final String deathLine,
            final int exitStatus) {
        final Map<String, String> fields = new HashMap<>();
        if (lastStatus != null) {
            final int outcomeAt = lastStatus.indexOf("outcome=");
            final String head = outcomeAt < 0 ? lastStatus : lastStatus.substring(0, outcomeAt);
            for (final String pair : head.trim().split(" ")) {
                final int eq = pair.indexOf('=');
                if (eq > 0) {
                    fields.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
            if (outcomeAt >= 0) {
                fields.put("outcome", lastStatus.substring(outcomeAt + "outcome=".length()));
            }
        }
        String outcome = fields.getOrDefault("outcome", "no status (exit " + exitStatus + ")");
        if (deathLine != null) {
            outcome = deathLine.replace("Terminating due to ", "").trim();
        } else if ("running".equals(outcome)) {
            outcome = "ended without a final status (exit " + exitStatus + ")";
        }
        final long completed = finalCompleted >= 0 ? finalCompleted : number(fields, "completed");
        return new BlowupResult(
                system,
                backend,
                outcome,
                number(fields, "elapsed_ms"),
                number(fields, "submitted"),
                completed,
                decimal(fields, "heap_peak_mb"),
                decimal(fields, "direct_peak_mb"),
                (int) number(fields, "threads_peak"),
                decimal(fields, "heap_max_mb"));
    }

    private static long number(final Map<String, String> fields, final String name) {
        final String value = fields.get(name);
        return value == null ? -1 : Long.parseLong(value);
    }

    private static double decimal(final Map<String, String> fields, final String name) {
        final String value = fields.get(name);
        return value == null ? Double.NaN : Double.parseDouble(value);
    }
}
