package io.walden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import org.junit.jupiter.api.Test;

/**
 * The build checks: a refusal names the setting, its value and the rule; the largest record follows
 * the buffer down when unset, and a value set is kept only if a frame of it fits in half the buffer.
 */
class ConfigRulesTest {
    private static final int BUFFER = 64 * 1024;
    private static final int LIMIT =
            (BUFFER - SegmentHeaderDescriptor.HEADER_LENGTH) / 2 - FrameDescriptor.HEADER_LENGTH;

    @Test
    void shouldDeriveTheLargestRecordFromTheBufferWhenUnset() {
        assertEquals(LIMIT, ConfigRules.maxRecordBytes(false, 0, WalConfig.MAX_RECORD_BYTES_DEFAULT, BUFFER, BUFFER));
        assertEquals(
                WalConfig.MAX_RECORD_BYTES_DEFAULT,
                ConfigRules.maxRecordBytes(
                        false, 0, WalConfig.MAX_RECORD_BYTES_DEFAULT, WalConfig.BUFFER_CAPACITY_BYTES_DEFAULT, -1));
    }

    @Test
    void shouldKeepALargestRecordSetWithinTheLimitAndRefuseOthersNamingTheRule() {
        assertEquals(0, ConfigRules.maxRecordBytes(true, 0, WalConfig.MAX_RECORD_BYTES_DEFAULT, BUFFER, -1));
        assertEquals(LIMIT, ConfigRules.maxRecordBytes(true, LIMIT, WalConfig.MAX_RECORD_BYTES_DEFAULT, BUFFER, -1));
        final WalException negative = assertThrows(
                WalException.class,
                () -> ConfigRules.maxRecordBytes(true, -5, WalConfig.MAX_RECORD_BYTES_DEFAULT, BUFFER, -1));
        assertTrue(
                negative.getMessage().contains("maxRecordBytes=-5: must be from 0 to " + LIMIT), negative.getMessage());
        final WalException tooLarge = assertThrows(
                WalException.class,
                () -> ConfigRules.maxRecordBytes(true, LIMIT + 1, WalConfig.MAX_RECORD_BYTES_DEFAULT, BUFFER, 65536));
        assertEquals(WalException.ErrorCode.CONFIG, tooLarge.errorCode());
        assertTrue(tooLarge.getMessage().contains("derived from segmentCapacityBytes=65536"), tooLarge.getMessage());
    }

    @Test
    void shouldRefuseWhatBreaksARuleAndPassWhatKeepsIt() {
        ConfigRules.check(true, "x", 1, "rule");
        ConfigRules.checkPowerOfTwoInRange("x", 4096, 4096, 8192);
        final WalException refused = assertThrows(WalException.class, () -> ConfigRules.check(false, "x", 1, "rule"));
        assertEquals("invalid WalConfig setting x=1: rule", refused.getMessage());
        assertThrows(WalException.class, () -> ConfigRules.checkPowerOfTwoInRange("x", 6144, 4096, 8192));
        assertThrows(WalException.class, () -> ConfigRules.checkPowerOfTwoInRange("x", 16384, 4096, 8192));
    }
}
