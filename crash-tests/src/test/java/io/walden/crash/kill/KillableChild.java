package io.walden.crash.kill;

import io.walden.crash.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A child program of the kill tests ({@link KillChild}, {@link GroupKillChild}) in its own JVM, with the
 * thread that reads its reports, hands each line to a {@link Listener}, and kills the child with SIGKILL
 * ({@link ProcessHandle#destroyForcibly()}) when the listener says so.
 *
 * <p>The child is started by {@link ChildJvm}: the test JVM's {@code java} with the test class path
 * minus the test frameworks, a small heap, the serial collector and the C1 compiler only, which keeps
 * its start near 0.3 s.
 *
 * <p><b>Threading:</b> created and driven by the test thread; the reader thread owns the listener (and
 * the report it fills) until it ends, and {@link #awaitKilled} joins it before the report is read.
 */
final class KillableChild {
    private static final long EXIT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final int SIGKILL_EXIT_STATUS = 128 + 9;

    /** What the reader thread makes of each line the child reports. */
    interface Listener {
        /**
         * Takes one complete line.
         *
         * @param line the line without its terminator.
         * @return whether it ends the wait for the child's open: the child opened its log, or failed.
         */
        boolean accept(String line);

        /** @return how long after the line just taken to kill the child; negative to let it run. */
        long killDelayNs();
    }

    /** What a child's report says of the child's own health, checked once it is gone. */
    interface Health {
        /** @return the failure the child reported, or null. */
        String error();

        /** @return the complete lines it reported outside its protocol. */
        List<String> malformedLines();
    }

    /**
     * A listener made of a report's parser and a kill trigger.
     *
     * @param parse parses a line into what the report makes of it, filling the report.
     * @param settles whether what a line was ends the wait for the child's open.
     * @param killDelayNs for what a line was, how long after it to kill the child; negative to let it run.
     * @param <E> what the report makes of a line.
     * @return the listener.
     */
    static <E> Listener listener(
            final Function<String, E> parse, final Predicate<E> settles, final ToLongFunction<E> killDelayNs) {
        return new Listener() {
            private E last;

            @Override
            public boolean accept(final String line) {
                last = parse.apply(line);
                return settles.test(last);
            }

            @Override
            public long killDelayNs() {
                return killDelayNs.applyAsLong(last);
            }
        };
    }

    private final Process process;
    private final Listener listener;
    private final Thread reader;
    // Written by the reader thread; read by the test thread after the join.
    private int partialTrailingBytes;
    // Counted down by the reader thread once the child opened its log, failed, or died.
    private final CountDownLatch readyOrDead = new CountDownLatch(1);
    private volatile boolean killed;

    private KillableChild(final Process process, final Listener listener) {
        this.process = process;
        this.listener = listener;
        this.reader = new Thread(this::readReports, "kill-child-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts a child.
     *
     * @param mainClass the child program, in this package.
     * @param arguments its arguments.
     * @param listener takes its reports.
     * @param stderrFile where the child's standard error is appended.
     * @param childClasses the copy of the child's classes ({@link #copyChildClasses}).
     * @return the running child.
     * @throws IOException if the JVM cannot be started.
     */
    static KillableChild start(
            final Class<?> mainClass,
            final List<String> arguments,
            final Listener listener,
            final Path stderrFile,
            final Path childClasses)
            throws IOException {
        return new KillableChild(ChildJvm.start(mainClass, childClasses, stderrFile, arguments), listener);
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
                if (listener.accept(text)) {
                    readyOrDead.countDown();
                }
                if (!killed) {
                    final long delayNs = listener.killDelayNs();
                    if (delayNs >= 0) {
                        spin(delayNs);
                        kill();
                    }
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
    private int awaitExit() throws InterruptedException {
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

    /**
     * Waits for the child to be gone and for its last reports to be read, and fails unless it died of
     * the kill: by SIGKILL, having reported no failure and only lines of its protocol, the last one whole.
     *
     * @param report what the child reported, read once its last reports are in.
     * @param context the cycle, for the message.
     * @throws InterruptedException if interrupted.
     * @throws AssertionError if the child failed by itself or broke its protocol.
     */
    void awaitKilled(final Health report, final String context) throws InterruptedException {
        final int exitStatus = awaitExit();
        if (report.error() != null
                || exitStatus != SIGKILL_EXIT_STATUS
                || !report.malformedLines().isEmpty()) {
            throw new AssertionError("the child failed by itself (exit status " + exitStatus + "): " + report.error()
                    + "; malformed lines " + report.malformedLines() + "; " + context);
        }
        if (partialTrailingBytes != 0) {
            throw new AssertionError("the child's last report was cut (" + partialTrailingBytes
                    + " bytes): a report line must be written with one write(2): " + context);
        }
    }
}
