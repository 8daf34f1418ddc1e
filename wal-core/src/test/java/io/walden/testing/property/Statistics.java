package io.walden.testing.property;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts what the cases of a property covered, per label and value, for the line the runner prints:
 * a property whose cases never reached a state proves nothing about it.
 *
 * <p><b>Threading:</b> used by the thread that runs the property.
 */
public final class Statistics {
    private final Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();

    /** Creates empty statistics. */
    public Statistics() {}

    /**
     * Counts one case under a label.
     *
     * @param label what is counted.
     * @param value the case's value for it.
     */
    public void collect(final String label, final Object value) {
        counts.computeIfAbsent(label, key -> new TreeMap<>()).merge(String.valueOf(value), 1, Integer::sum);
    }

    /**
     * How many cases had a value under a label.
     *
     * @param label the label.
     * @param value the value.
     * @return the count.
     */
    public int count(final String label, final Object value) {
        return counts.getOrDefault(label, Map.of()).getOrDefault(String.valueOf(value), 0);
    }

    @Override
    public String toString() {
        final StringBuilder text = new StringBuilder();
        counts.forEach((label, values) -> {
            final int total =
                    values.values().stream().mapToInt(Integer::intValue).sum();
            text.append(text.length() == 0 ? "" : "; ").append(label).append(':');
            values.forEach((value, count) -> text.append(' ')
                    .append(value)
                    .append(' ')
                    .append(Math.round(100.0 * count / total))
                    .append('%'));
        });
        return text.toString();
    }
}
