package io.walden.crash.kill;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@link KillChild} in its own JVM, with the thread that reads its reports and kills it with SIGKILL
 * ({@link ProcessHandle#destroyForcibly()}) when its {@link KillTrigger} fires.
 *
 * <p>The child runs the test JVM's {@code java} with the test class path minus the test frameworks, a
 * small heap, the serial collector and the C1 compiler only, which keeps its start near 0.3 s.
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
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx48m");
        command.add("-Xss512k");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:-UsePerfData");
        command.add("-Xshare:auto");
        command.add("-ea");
        command.add("-Dwalden.checks=true");
        command.add("-cp");
        command.add(childClassPath(childClasses));
        command.add(KillChild.class.getName());
        command.add(directory.toString());
        command.add(backendName);
        command.add(Integer.toString(cycle));
        command.add(Integer.toString(threadCount));
        command.add(Long.toString(seed));
        final Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderrFile.toFile()))
                .start();
        process.getOutputStream().close();
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
        final Path source;
        try {
            source = Path.of(KillChild.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (final URISyntaxException ex) {
            throw new IOException("cannot locate the classes of " + KillChild.class.getName(), ex);
        }
        final String packagePath = KillChild.class.getPackageName().replace('.', File.separatorChar);
        final Path targetPackage = Files.createDirectories(target.resolve(packagePath));
        try (Stream<Path> classes = Files.list(source.resolve(packagePath))) {
            for (final Path file : (Iterable<Path>) classes::iterator) {
                Files.copy(file, targetPackage.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /**
     * The class path of the test JVM without the test frameworks (which the child does not load) and
     * with the child's classes from their private copy. Under surefire {@code java.class.path} is the
     * real test class path (surefire restores it in the forked JVM even when it starts that JVM from a
     * manifest-only jar); a class path without Walden's core means that is no longer true, and the test
     * says so.
     */
    private static String childClassPath(final Path childClasses) {
        final String classPath = System.getProperty("java.class.path");
        final List<String> kept = new ArrayList<>();
        kept.add(childClasses.toString());
        for (final String entry : classPath.split(File.pathSeparator)) {
            final String name = Path.of(entry).getFileName().toString();
            if (!name.equals("test-classes")
                    && !name.startsWith("junit-")
                    && !name.startsWith("opentest4j")
                    && !name.startsWith("apiguardian")
                    && !name.startsWith("surefire")
                    && !name.startsWith("common-java5")
                    && !name.startsWith("common-junit")) {
                kept.add(entry);
            }
        }
        if (kept.stream()
                .noneMatch(entry -> Path.of(entry).getFileName().toString().startsWith("wal-core"))) {
            throw new IllegalStateException("java.class.path does not hold wal-core, so the child JVM cannot run "
                    + KillChild.class.getName() + ": " + classPath + " (surefire useManifestOnlyJar hiding it?)");
        }
        return String.join(File.pathSeparator, kept);
    }

    private void readReports() {
        final ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        try (InputStream in = process.getInputStream()) {
            final byte[] chunk = new byte[8192];
            int count;
            while ((count = in.read(chunk)) >= 0) {
                for (int i = 0; i < count; i++) {
                    if (chunk[i] != '\n') {
                        line.write(chunk[i]);
                        continue;
                    }
                    final ChildReport.Event event = report.accept(line.toString(StandardCharsets.US_ASCII));
                    line.reset();
                    if (event == ChildReport.Event.READY || event == ChildReport.Event.ERROR) {
                        readyOrDead.countDown();
                    }
                    if (!killed && trigger.onEvent(event, report)) {
                        spin(trigger.delayNs());
                        kill();
                    }
                }
            }
        } catch (final IOException ex) {
            // The pipe broke with the child; everything it wrote before dying was read.
        } finally {
            partialTrailingBytes = line.size();
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
