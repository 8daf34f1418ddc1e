package io.walden.architecture.broken.internal.recovery;

import io.walden.architecture.broken.internal.state.Counter;

/** Recovery of the broken layout: it uses state, as it may (the other half of the cycle). */
public final class Scan {
    /** The length scanned. */
    public int lengthBytes() {
        return 0;
    }

    /** Counts through state. */
    public int countedBytes() {
        return new Counter().scannedBytes();
    }
}
