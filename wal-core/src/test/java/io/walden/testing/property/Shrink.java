package io.walden.testing.property;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Shrinkers: from a failing value, smaller values to try, the most promising first. A runner keeps
 * the first candidate that still fails and asks again, until none does.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class Shrink {
    private Shrink() {}

    /**
     * The lists with a run of elements deleted: halves first, then quarters, down to single elements,
     * so a long failing sequence loses most of its irrelevant operations in a few steps.
     *
     * @param list the failing list.
     * @param <T> its elements.
     * @return the candidates, shortest first.
     */
    public static <T> List<List<T>> deletions(final List<T> list) {
        final List<List<T>> candidates = new ArrayList<>();
        for (int chunk = Math.max(1, list.size() / 2); chunk >= 1; chunk /= 2) {
            for (int start = 0; start < list.size(); start += chunk) {
                final List<T> candidate = new ArrayList<>(list.subList(0, start));
                candidate.addAll(list.subList(Math.min(list.size(), start + chunk), list.size()));
                if (candidate.size() < list.size()) {
                    candidates.add(candidate);
                }
            }
            if (chunk == 1) {
                break;
            }
        }
        return candidates;
    }

    /**
     * Shrinks the elements of a list in place, one at a time: for each element, the list with that
     * element replaced by each of its own shrinks.
     *
     * @param list the failing list.
     * @param element the shrinker of one element.
     * @param <T> its elements.
     * @return the candidates.
     */
    public static <T> List<List<T>> eachElement(final List<T> list, final Function<T, List<T>> element) {
        final List<List<T>> candidates = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            for (final T smaller : element.apply(list.get(i))) {
                final List<T> candidate = new ArrayList<>(list);
                candidate.set(i, smaller);
                candidates.add(candidate);
            }
        }
        return candidates;
    }

    /**
     * No candidates: a value that cannot shrink.
     *
     * @param value the value.
     * @param <T> its type.
     * @return an empty list.
     */
    public static <T> List<T> none(final T value) {
        return List.of();
    }
}
