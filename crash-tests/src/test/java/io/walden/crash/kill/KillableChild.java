package io.walden.crash.kill;

import io.walden.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link KillChild} in its own JVM, with the thread that reads its reports and kills it with SIGKILL
 * ({@link ProcessHandle#destroyForcibly()}) when its {@link KillTrigger} fires.
 *
 * <p>The child is started by {@link ChildJvm}: the test JVM's {@code java} with the test class path
 * minus the test frameworks, a small heap, the serial collector and the C1 compiler only, which keeps
 * its start near 0.3 s.
 *
 * <p><b>Threading:</b> created and driven by the test thread; the reader thread owns the report until
 * it ends, and {@link #awaitExit} joins it before the report is handed out.
 */
final class KillableChild {
    private static final long EXIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);

    private final Process process;
    private final ChildReport report = new ChildReport();
    private final KillTrigger trigger;
    private final Thread reader;
    // Written by the reader thread; read by the test thread after the join.
    private int partialTrailingBytes;
    // Counted down by the reader thread once the child opened its log, failed, or died.
    private final CountDownLatch readyOrDead = new CountDownLatch(1);
    private volatile boolean killed;

    private KillableChild(final Process process, final KillTrigger trigger) {
        this.process = process;
        this.trigger = trigger;
        this.reader = new Thread(this::readReports, "kill-child-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child.
     *
     * @param directory the log directory.
     * @param backendName the backend.
     * @param cycle the cycle number, tagged into every record.
     * @param threadCount appender threads.
     * @param seed random seed of the child.
     * @param trigger when to kill it.
     * @param stderrFile where the child's standard error is appended.
     * @param childClasses the copy of the child's classes ({@link #copyChildClasses}).
     * @return the running child.
     * @throws IOException if the JVM cannot be started.
     */
    static KillableChild start(
            final Path directory,
            final String backendName,
            final int cycle,
            final int threadCount,
            final long seed,
            final KillTrigger trigger,
            final Path stderrFile,
            final Path childClasses)
            throws IOException {
        final Process process = ChildJvm.start(
                KillChild.class,
                childClasses,
                stderrFile,
                List.of(
                        directory.toString(),
                        backendName,
                        Integer.toString(cycle),
                        Integer.toString(threadCount),
                        Long.toString(seed)));
        return new KillableChild(process, trigger);
    }

    /**
     * Copies the child's classes (this package) out of the test class directory, so that a child never
     * misses them while a concurrent build recompiles the module.
     *
     * @param target the directory to copy them to; it becomes a class path entry.
     * @throws IOException if they cannot be copied.
     */
    static void copyChildClasses(final Path target) throws IOException {
        ChildJvm.copyChildClasses(KillChild.class, target);
    }

    private void readReports() {
        try {
            partialTrailingBytes = ChildJvm.readLines(process, text -> {
                final ChildReport.Event event = report.accept(text);
                if (event == ChildReport.Event.READY || event == ChildReport.Event.ERROR) {
                    readyOrDead.countDown();
                }
                if (!killed && trigger.onEvent(event, report)) {
                    spin(trigger.delayNs());
                    kill();
                }
            });
        } finally {
            readyOrDead.countDown();
        }
    }

    private static void spin(final long nanos) {
        final long deadlineNs = System.nanoTime() + nanos;
        while (System.nanoTime() < deadlineNs) {
            Thread.onSpinWait();
        }
    }

    /**
     * Waits until the child opened its log, failed, or died.
     *
     * @param timeoutNs most time to wait.
     * @return true if one of those happened.
     * @throws InterruptedException if interrupted.
     */
    boolean awaitReadyOrDead(final long timeoutNs) throws InterruptedException {
        return readyOrDead.await(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /**
     * Waits for the child to die by itself (its trigger fired) for at most a time.
     *
     * @param timeoutNs most time to wait.
     * @return true if it died.
     * @throws InterruptedException if interrupted.
     */
    boolean awaitDeath(final long timeoutNs) throws InterruptedException {
        return process.waitFor(timeoutNs, TimeUnit.NANOSECONDS);
    }

    /**
     * Kills the child with SIGKILL. Any thread; idempotent. Through the process handle: {@link
     * Process#destroyForcibly()} also closes the pipe, and the reports the child wrote just before it died
     * (a truncation request among them) would be lost unread.
     */
    void kill() {
        killed = true;
        process.toHandle().destroyForcibly();
    }

    /** @return whether the child is still running. */
    boolean alive() {
        return process.isAlive();
    }

    /** @return whether the parent killed the child (as opposed to it exiting by itself). */
    boolean killed() {
        return killed;
    }

    /**
     * Waits for the child to be gone and for its last reports to be read.
     *
     * @return the exit status (137 after SIGKILL).
     * @throws InterruptedException if interrupted.
     * @throws IllegalStateException if it does not exit in time.
     */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(EXIT_TIMEOUT_NS, TimeUnit.NANOSECONDS)) {
            process.toHandle().destroyForcibly();
            throw new IllegalStateException("child " + process.pid() + " did not exit after SIGKILL");
        }
        reader.join(TimeUnit.NANOSECONDS.toMillis(EXIT_TIMEOUT_NS));
        if (reader.isAlive()) {
            throw new IllegalStateException("the child's output did not end after it exited");
        }
        return process.exitValue();
    }

    /** @return what the child reported; complete after {@link #awaitExit}. */
    ChildReport report() {
        return report;
    }

    /** @return bytes of an unfinished last line, which is ignored (the kill cut it). */
    int partialTrailingBytes() {
        return partialTrailingBytes;
    }

    /** @return the trigger. */
    KillTrigger trigger() {
        return trigger;
    }
}
