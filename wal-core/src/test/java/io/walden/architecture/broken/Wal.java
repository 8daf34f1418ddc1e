package io.walden.architecture.broken;

import io.walden.architecture.broken.internal.Engine;

/** A facade of the broken layout: it calls into the implementation, as the real one does. */
public final class Wal {
    /** Opens the broken log. */
    public Wal() {
        new Engine().start();
    }

    /** The facade's own work. */
    public void append() {}
}
