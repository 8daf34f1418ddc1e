package io.walden.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The power supply several {@link SimulatedStorage}s share, as the directories of one machine do: when
 * any of their disks loses power (a crash point, {@link SimulatedStorage#powerOff()}), every disk on the
 * line does, at once, so that no directory records an operation after the failure. Each storage's
 * {@link SimulatedStorage#crash} then brings its own directory back.
 *
 * <p><b>Threading:</b> thread-safe; the flag is volatile and read by every disk on each operation.
 */
final class PowerLine {
    private final List<SimulatedStorage> storages = new CopyOnWriteArrayList<>();
    private volatile boolean off;

    void connect(final SimulatedStorage storage) {
        storages.add(storage);
    }

    boolean isOff() {
        return off;
    }

    /**
     * The power fails: every disk on the line sees it on its next operation. Only a flag, so that a disk
     * may cut the line while it holds its own monitor.
     */
    void cut() {
        off = true;
    }

    /**
     * Power back, for the storage that crashed and the disks made from now on: every other disk on the
     * line first latches the failure, and stays frozen until its own storage crashes.
     */
    synchronized void restore() {
        if (!off) {
            return;
        }
        for (final SimulatedStorage storage : storages) {
            storage.latchPowerFailure();
        }
        off = false;
    }
}
