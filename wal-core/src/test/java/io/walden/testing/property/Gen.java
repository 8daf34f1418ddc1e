package io.walden.testing.property;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A generator: draws a value from a seeded source of randomness, so that the same seed always draws
 * the same value. Generators compose with {@link #map}, {@link #listOf}, {@link #oneOf} and {@link
 * #frequency}.
 *
 * @param <T> the value.
 */
@FunctionalInterface
public interface Gen<T> {
    /**
     * Draws a value.
     *
     * @param random the source; the only one the generator may use.
     * @return the value.
     */
    T draw(SplittableRandom random);

    /**
     * A generator of values derived from this one's.
     *
     * @param mapper the derivation.
     * @param <R> the derived value.
     * @return the generator.
     */
    default <R> Gen<R> map(final Function<? super T, ? extends R> mapper) {
        return random -> mapper.apply(draw(random));
    }

    /**
     * Lists of this generator's values.
     *
     * @param minSize the fewest elements.
     * @param maxSize the most elements.
     * @return the generator; sizes are uniform in [minSize, maxSize].
     */
    default Gen<List<T>> listOf(final int minSize, final int maxSize) {
        return random -> {
            final int size = minSize + random.nextInt(maxSize - minSize + 1);
            final List<T> list = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                list.add(draw(random));
            }
            return list;
        };
    }

    /**
     * Lists of this generator's values with sizes from another generator.
     *
     * @param sizes the sizes' generator.
     * @return the generator.
     */
    default Gen<List<T>> listOf(final Gen<Integer> sizes) {
        return random -> {
            final int size = sizes.draw(random);
            final List<T> list = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                list.add(draw(random));
            }
            return list;
        };
    }

    /**
     * Integers skewed toward the small end, with both ends drawn often: an eighth of the draws is
     * the least value, an eighth the greatest, and the rest is {@code min + (max - min + 1) * u^2} for
     * a uniform {@code u}. Small cases are cheap and shrink well; the ends find off-by-one errors.
     *
     * @param min the least.
     * @param max the greatest, inclusive.
     * @return the generator.
     */
    static Gen<Integer> skewed(final int min, final int max) {
        return random -> {
            final int pick = random.nextInt(8);
            if (pick == 0) {
                return min;
            }
            if (pick == 1) {
                return max;
            }
            final double u = random.nextDouble();
            return (int) Math.min(max, min + (long) ((max - min + 1L) * u * u));
        };
    }

    /**
     * Integers, uniformly.
     *
     * @param min the least.
     * @param max the greatest, inclusive.
     * @return the generator.
     */
    static Gen<Integer> between(final int min, final int max) {
        return random -> min + random.nextInt(max - min + 1);
    }

    /**
     * One constant.
     *
     * @param value the value.
     * @param <T> its type.
     * @return the generator.
     */
    static <T> Gen<T> just(final T value) {
        return random -> value;
    }

    /**
     * One of some values, uniformly.
     *
     * @param values the values.
     * @param <T> their type.
     * @return the generator.
     */
    static <T> Gen<T> oneOf(final List<T> values) {
        final List<T> copy = List.copyOf(values);
        return random -> copy.get(random.nextInt(copy.size()));
    }

    /**
     * The generator of one of several weighted generators.
     *
     * @param choices the weighted generators.
     * @param <T> their value.
     * @return the generator.
     */
    static <T> Gen<T> frequency(final List<Weighted<? extends T>> choices) {
        final List<Weighted<? extends T>> copy = List.copyOf(choices);
        final int total = copy.stream().mapToInt(Weighted::weight).sum();
        return random -> {
            int pick = random.nextInt(total);
            for (final Weighted<? extends T> choice : copy) {
                pick -= choice.weight();
                if (pick < 0) {
                    return choice.gen().draw(random);
                }
            }
            throw new AssertionError("weights changed");
        };
    }

    /**
     * A generator with a weight, for {@link #frequency}.
     *
     * @param weight its weight, positive.
     * @param gen the generator.
     * @param <T> its value.
     */
    record Weighted<T>(int weight, Gen<T> gen) {
        /**
         * Checks the weight.
         *
         * @param weight its weight, positive.
         * @param gen the generator.
         */
        public Weighted {
            if (weight <= 0) {
                throw new IllegalArgumentException("weight " + weight);
            }
        }
    }

    /**
     * A weighted generator, for {@link #frequency}.
     *
     * @param weight its weight, positive.
     * @param gen the generator.
     * @param <T> its value.
     * @return the weighted generator.
     */
    static <T> Weighted<T> weighted(final int weight, final Gen<T> gen) {
        return new Weighted<>(weight, gen);
    }
}
