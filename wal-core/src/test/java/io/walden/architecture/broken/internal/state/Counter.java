package io.walden.architecture.broken.internal.state;

import io.walden.architecture.broken.internal.recovery.Scan;

/** Shared state of the broken layout: it reaches up into recovery (the layering violation). */
public final class Counter {
    /** The scanned length, asked of recovery (the violation, and half of a cycle). */
    public int scannedBytes() {
        return new Scan().lengthBytes();
    }
}
