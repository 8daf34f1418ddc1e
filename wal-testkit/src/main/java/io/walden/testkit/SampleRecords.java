package io.walden.testkit;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Records that look like what services log, for tests and benchmarks of compression: JSON-like orders
 * with repeated field names, numbers and short strings from small vocabularies.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class SampleRecords {
    private static final String[] NAMES = {"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"};
    private static final String[] STATES = {"PENDING", "ACTIVE", "SUSPENDED", "CLOSED"};
    private static final String[] CITIES = {"Lisbon", "Oslo", "Turin", "Quito", "Perth", "Accra"};

    private SampleRecords() {}

    /**
     * A JSON-like record of about {@code approximateBytes} (UTF-8).
     *
     * @param random the source of its values.
     * @param approximateBytes about how long it is.
     * @return the record.
     */
    public static byte[] jsonLike(final SplittableRandom random, final int approximateBytes) {
        final StringBuilder json = new StringBuilder(approximateBytes + 200);
        json.append("{\"type\":\"order\",\"id\":")
                .append(random.nextLong(1_000_000_000L))
                .append(",\"items\":[");
        int item = 0;
        while (json.length() < approximateBytes - 40) {
            if (item++ > 0) {
                json.append(',');
            }
            json.append("{\"sku\":\"SKU-")
                    .append(random.nextInt(100_000))
                    .append("\",\"quantity\":")
                    .append(1 + random.nextInt(9))
                    .append(",\"price\":")
                    .append(random.nextInt(100_000) / 100.0)
                    .append(",\"customer\":\"")
                    .append(NAMES[random.nextInt(NAMES.length)])
                    .append("\",\"city\":\"")
                    .append(CITIES[random.nextInt(CITIES.length)])
                    .append("\",\"state\":\"")
                    .append(STATES[random.nextInt(STATES.length)])
                    .append("\"}");
        }
        json.append("]}");
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }
}
