package io.walden.architecture.broken.spi;

import io.walden.architecture.broken.internal.state.Counter;

/** The SPI of the broken layout: it uses an internal package (the violation). */
public final class Backend {
    /** Reads the implementation's state. */
    public int countedBytes(final Counter counter) {
        return counter.scannedBytes();
    }
}
