package io.walden;

import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Reads settings from system properties for {@link WalConfig.Builder#fromSystemProperties}, refusing
 * a value that does not parse with an error that names the property. A property that is not set
 * leaves its setting alone.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ConfigProperties {
    private ConfigProperties() {}

    @FunctionalInterface
    interface BooleanSetter {
        Object accept(boolean value);
    }

    static void intProperty(final String name, final IntConsumer setter) {
        final String text = System.getProperty(name);
        if (text != null) {
            final long value = parseLong(name, text);
            if (value != (int) value) {
                throw new WalException(
                        WalException.ErrorCode.CONFIG,
                        "invalid WalConfig system property " + name + "=" + value + ": larger than an int");
            }
            setter.accept((int) value);
        }
    }

    static void longProperty(final String name, final LongConsumer setter) {
        final String text = System.getProperty(name);
        if (text != null) {
            setter.accept(parseLong(name, text));
        }
    }

    static void booleanProperty(final String name, final BooleanSetter setter) {
        final String text = System.getProperty(name);
        if (text == null) {
            return;
        }
        final String value = text.trim();
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "invalid WalConfig system property " + name + "=" + text + ": not true or false");
        }
        setter.accept(Boolean.parseBoolean(value));
    }

    private static long parseLong(final String name, final String text) {
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
