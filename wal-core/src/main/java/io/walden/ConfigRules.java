package io.walden;

import org.agrona.BitUtil;

/**
 * The checks {@link WalConfig.Builder#build()} makes, each refusing a value with a {@link
 * WalException} ({@link WalException.ErrorCode#CONFIG}) that names the setting, the value and the rule.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ConfigRules {
    private ConfigRules() {}

    /**
     * Refuses a value unless it keeps a rule.
     *
     * @param valid whether the value keeps the rule.
     * @param name the setting.
     * @param value its value.
     * @param rule the rule, as the message says it.
     * @throws WalException if not valid.
     */
    static void check(final boolean valid, final String name, final Object value, final String rule) {
        if (!valid) {
            throw invalid(name, value, rule);
        }
    }

    /**
     * Refuses a value that is not a power of two in a range.
     *
     * @param name the setting.
     * @param value its value.
     * @param minValue the least allowed.
     * @param maxValue the most allowed.
     * @throws WalException if not.
     */
    static void checkPowerOfTwoInRange(final String name, final int value, final int minValue, final int maxValue) {
        check(
                value >= minValue && value <= maxValue && BitUtil.isPowerOfTwo(value),
                name,
                value,
                "must be a power of two from " + minValue + " to " + maxValue);
    }

    /**
     * The refusal of a value.
     *
     * @param name the setting.
     * @param value its value.
     * @param rule the rule it breaks.
     * @return the exception to throw.
     */
    static WalException invalid(final String name, final Object value, final String rule) {
        return new WalException(
                WalException.ErrorCode.CONFIG, "invalid WalConfig setting " + name + "=" + value + ": " + rule);
    }
}
