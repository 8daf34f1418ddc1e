package io.walden.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The capabilities record: what the options give, the defaults, each {@code with...} and the checks. */
class StorageCapabilitiesTest {
    @Test
    void shouldTakeTheModeFromTheOptionsAndDefaultTheRest() {
        final StorageCapabilities buffered = StorageCapabilities.of(StorageOptions.BUFFERED, 32);
        assertFalse(buffered.directIo());
        assertFalse(buffered.writesDurable());
        assertEquals(1, buffered.blockSizeBytes());
        assertEquals(32, buffered.maxInFlight());
        assertFalse(buffered.callerMayRunIo());
        assertFalse(buffered.completionThreadMayRunIo());
        assertEquals(1, buffered.overlappingWritesMax());
        assertNull(buffered.durabilityNote());

        final StorageCapabilities directDsync = StorageCapabilities.of(new StorageOptions(true, true), 64);
        assertTrue(directDsync.directIo());
        assertTrue(directDsync.writesDurable());
        assertEquals(StorageOptions.DIRECT_BLOCK_SIZE_BYTES, directDsync.blockSizeBytes());
        assertEquals(64, directDsync.maxInFlight());
        assertEquals(StorageCapabilities.of(true, true, StorageOptions.DIRECT_BLOCK_SIZE_BYTES, 64), directDsync);
    }

    @Test
    void shouldChangeOneComponentAtATime() {
        final StorageCapabilities base = StorageCapabilities.of(StorageOptions.DIRECT, 8);
        final StorageCapabilities changed = base.withWritesDurable(true)
                .withMaxInFlight(4)
                .withCallerMayRunIo(true)
                .withCompletionThreadMayRunIo(true)
                .withOverlappingWritesMax(16)
                .withDurabilityNote("fdatasync instead of O_DSYNC on fuse");
        assertEquals(
                new StorageCapabilities(
                        true,
                        true,
                        StorageOptions.DIRECT_BLOCK_SIZE_BYTES,
                        4,
                        true,
                        true,
                        16,
                        "fdatasync instead of O_DSYNC on fuse"),
                changed);
        assertEquals(base, base.withMaxInFlight(8), "a with... of the same value is an equal record");
        assertEquals(
                base.withCallerMayRunIo(true),
                StorageCapabilities.of(StorageOptions.DIRECT, 8).withCallerMayRunIo(true));
        assertFalse(changed.withCallerMayRunIo(false).callerMayRunIo());
        assertTrue(changed.withCallerMayRunIo(false).completionThreadMayRunIo(), "only the one component");
        assertNull(changed.withDurabilityNote(null).durabilityNote());
    }

    @Test
    void shouldRefuseWhatNoSessionCanBe() {
        assertThrows(IllegalArgumentException.class, () -> StorageCapabilities.of(true, false, 3000, 1));
        assertThrows(IllegalArgumentException.class, () -> StorageCapabilities.of(false, false, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> StorageCapabilities.of(StorageOptions.BUFFERED, 0));
        assertThrows(IllegalArgumentException.class, () -> StorageCapabilities.of(StorageOptions.BUFFERED, 1)
                .withOverlappingWritesMax(0));
    }
}
