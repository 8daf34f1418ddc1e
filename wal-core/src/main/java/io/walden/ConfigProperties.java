package io.walden;

import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Reads {@link WalConfig} settings from system properties ({@link WalConfig.Builder#fromSystemProperties}),
 * refusing a value that does not parse with an error that names the property.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ConfigProperties {
    private ConfigProperties() {}

    /**
     * Sets every setting of a builder that has its {@code *_PROP_NAME} system property set.
     *
     * @param builder the builder.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if a property does not parse.
     */
    static void applyTo(final WalConfig.Builder builder) {
        intProperty(WalConfig.SEGMENT_CAPACITY_BYTES_PROP_NAME, builder::segmentCapacityBytes);
        intProperty(WalConfig.BUFFER_CAPACITY_BYTES_PROP_NAME, builder::bufferCapacityBytes);
        intProperty(WalConfig.MAX_RECORD_BYTES_PROP_NAME, builder::maxRecordBytes);
        intProperty(WalConfig.MAX_BATCH_BYTES_PROP_NAME, builder::maxBatchBytes);
        longProperty(WalConfig.GROUP_WINDOW_NS_PROP_NAME, builder::groupWindowNs);
        if (System.getProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME) != null) {
            builder.groupReturnWait(booleanProperty(WalConfig.GROUP_RETURN_WAIT_PROP_NAME, true));
        }
        longProperty(WalConfig.WAIT_YIELD_NS_PROP_NAME, builder::waitYieldNs);
        longProperty(WalConfig.SYNC_INTERVAL_NS_PROP_NAME, builder::syncIntervalNs);
        longProperty(WalConfig.APPEND_TIMEOUT_NS_PROP_NAME, builder::appendTimeoutNs);
        intProperty(WalConfig.RECYCLED_SEGMENTS_MAX_PROP_NAME, builder::recycledSegmentsMax);
        intProperty(WalConfig.DURABLE_WRITES_IN_FLIGHT_MAX_PROP_NAME, builder::durableWritesInFlightMax);
        if (System.getProperty(WalConfig.WRITE_DEPTH_MEASURED_PROP_NAME) != null) {
            builder.writeDepthMeasured(booleanProperty(WalConfig.WRITE_DEPTH_MEASURED_PROP_NAME, true));
        }
    }

    private static void intProperty(final String name, final IntConsumer setter) {
        if (System.getProperty(name) != null) {
            final long value = longProperty(name, 0);
            if (value != (int) value) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "invalid WalConfig system property " + name + "=" + value + ": larger than an int");
            }
            setter.accept((int) value);
        }
    }

    private static void longProperty(final String name, final LongConsumer setter) {
        if (System.getProperty(name) != null) {
            setter.accept(longProperty(name, 0));
        }
    }

    /**
     * A boolean property: {@code true} or {@code false}, any case.
     *
     * @param name the property.
     * @param defaultValue the value if it is not set.
     * @return the value.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if it is set to anything else.
     */
    static boolean booleanProperty(final String name, final boolean defaultValue) {
        final String text = System.getProperty(name);
        if (text == null) {
            return defaultValue;
        }
        final String value = text.trim();
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new WalException(
                WalException.ErrorCode.CONFIG,
                "invalid WalConfig system property " + name + "=" + text + ": not true or false");
    }

    /**
     * A whole-number property.
     *
     * @param name the property.
     * @param defaultValue the value if it is not set.
     * @return the value.
     * @throws WalException ({@link WalException.ErrorCode#CONFIG}) if it is not a whole number.
     */
    static long longProperty(final String name, final long defaultValue) {
        final String text = System.getProperty(name);
        if (text == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(text.trim());
        } catch (final NumberFormatException ex) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "invalid WalConfig system property " + name + "=" + text + ": not a whole number",
                    ex);
        }
    }
}
