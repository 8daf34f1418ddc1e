package io.walden;

/**
 * Reads {@link WalConfig} settings from system properties ({@link WalConfig.Builder#fromSystemProperties}),
 * refusing a value that does not parse with an error that names the property.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ConfigProperties {
    private ConfigProperties() {}

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
