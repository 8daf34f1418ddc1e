package io.walden.architecture.broken.internal;

import io.walden.architecture.broken.Wal;

/** The lifecycle of the broken layout: it calls the facade back (a facade use from below). */
public final class Engine {
    /** Starts the engine. */
    public void start() {}

    /** Hands the facade a call (the violation). */
    public void callBack(final Wal wal) {
        wal.append();
    }
}
