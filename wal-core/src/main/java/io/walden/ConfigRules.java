package io.walden;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import org.agrona.BitUtil;

/**
 * The checks {@link WalConfig.Builder#build()} makes, each refusing a value with a {@link
 * WalException} ({@link WalException.ErrorCode#CONFIG}) that names the setting, the value and the rule.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ConfigRules {
    private ConfigRules() {}

    static void check(final boolean valid, final String name, final Object value, final String rule) {
        if (!valid) {
            throw invalid(name, value, rule);
        }
    }

    static void checkPowerOfTwoInRange(final String name, final int value, final int minValue, final int maxValue) {
        check(
                value >= minValue && value <= maxValue && BitUtil.isPowerOfTwo(value),
                name,
                value,
                "must be a power of two from " + minValue + " to " + maxValue);
    }

    /**
     * The largest record payload: the one set, or, unset, the default or what half the buffer holds if
     * less; refused unless a frame of it fits in half the buffer (less a segment header).
     */
    static int maxRecordBytes(
            final boolean set,
            final int setBytes,
            final int defaultBytes,
            final int bufferBytes,
            final int bufferDerivedFromSegmentBytes) {
        final int maxFrameBytes = (bufferBytes - SegmentHeaderDescriptor.HEADER_LENGTH) / 2;
        final int limit = maxFrameBytes - FrameDescriptor.HEADER_LENGTH;
        final int maxRecord = set ? setBytes : Math.min(defaultBytes, limit);
        check(
                maxRecord >= 0 && maxRecord <= limit,
                "maxRecordBytes",
                maxRecord,
                "must be from 0 to " + limit + " so that a frame fits in half the buffer of " + bufferBytes + " bytes"
                        + (bufferDerivedFromSegmentBytes < 0
                                ? ""
                                : " (bufferCapacityBytes, derived from segmentCapacityBytes="
                                        + bufferDerivedFromSegmentBytes + ")")
                        + "; raise bufferCapacityBytes for larger records");
        return maxRecord;
    }

    static WalException invalid(final String name, final Object value, final String rule) {
        return new WalException(
                WalException.ErrorCode.CONFIG, "invalid WalConfig setting " + name + "=" + value + ": " + rule);
    }
}
