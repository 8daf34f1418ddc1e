package io.walden.crash;

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
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Starts a test program in a child JVM: the test JVM's {@code java} with the test class path minus the
 * test frameworks, a small heap, the serial collector and the C1 compiler only, which keeps its start
 * near 0.3 s. Its standard output is a pipe to the parent; its standard error is appended to a file.
 * Used by the kill tests ({@code kill}) and the live-follower test ({@code follow}).
 *
 * <p><b>Threading:</b> stateless.
 */
public final class ChildJvm {
    /** The first JDK whose Foreign Function API is final (the flag that grants it native access). */
    private static final int NATIVE_ACCESS_FLAG_FEATURE = 22;
    /** The first JDK with {@code --sun-misc-unsafe-memory-access}. */
    private static final int UNSAFE_FLAG_FEATURE = 23;

    private ChildJvm() {}

    /**
     * Reads a child's standard output line by line ({@code '\n'}-terminated ASCII) until the pipe closes
     * or breaks with the child; every line completed before that is handed over, in order, on the
     * calling thread.
     *
     * @param child the child.
     * @param onLine receives each line, without its terminator.
     * @return how many bytes of an unfinished last line were read (what a kill cut).
     */
    public static int readLines(final Process child, final Consumer<String> onLine) {
        final ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        try (InputStream in = child.getInputStream()) {
            final byte[] chunk = new byte[8192];
            int count;
            while ((count = in.read(chunk)) >= 0) {
                for (int i = 0; i < count; i++) {
                    if (chunk[i] != '\n') {
                        line.write(chunk[i]);
                        continue;
                    }
                    final String text = line.toString(StandardCharsets.US_ASCII);
                    line.reset();
                    onLine.accept(text);
                }
            }
        } catch (final IOException ex) {
            // The pipe broke with the child; everything it wrote before was read.
        }
        return line.size();
    }

    /**
     * Starts a child JVM.
     *
     * @param mainClass the child's main class; its package is in {@code childClasses}.
     * @param childClasses the copy of the child's classes ({@link #copyChildClasses}).
     * @param stderrFile where the child's standard error is appended.
     * @param arguments the arguments of its main method.
     * @return the running process, its standard input closed.
     * @throws IOException if the JVM cannot be started.
     */
    public static Process start(
            final Class<?> mainClass, final Path childClasses, final Path stderrFile, final List<String> arguments)
            throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx48m");
        command.add("-Xss512k");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:-UsePerfData");
        command.add("-Xshare:auto");
        if (Runtime.version().feature() >= NATIVE_ACCESS_FLAG_FEATURE) {
            // The ring-owning io_uring backend calls the C library; JDK 24+ also warns about Agrona's
            // use of sun.misc.Unsafe. Granted, as a service on those JDKs must.
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        if (Runtime.version().feature() >= UNSAFE_FLAG_FEATURE) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.add("-ea");
        command.add("-Dwalden.checks=true");
        command.add("-cp");
        command.add(childClassPath(mainClass, childClasses));
        command.add(mainClass.getName());
        command.addAll(arguments);
        final Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderrFile.toFile()))
                .start();
        process.getOutputStream().close();
        return process;
    }

    /**
     * Copies the classes of a child's package out of the test class directory, so that a child never
     * misses them while a concurrent build recompiles the module.
     *
     * @param mainClass the child's main class: its whole package is copied, and {@link MixedAppend} and {@link ChildBackends}.
     * @param target the directory to copy them to; it becomes a class path entry.
     * @throws IOException if they cannot be copied.
     */
    public static void copyChildClasses(final Class<?> mainClass, final Path target) throws IOException {
        final Path source;
        try {
            source = Path.of(mainClass
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (final URISyntaxException ex) {
            throw new IOException("cannot locate the classes of " + mainClass.getName(), ex);
        }
        copyClasses(source, mainClass.getPackageName(), target, name -> true);
        // Child-side code the children share, kept in this package.
        final List<String> shared = List.of(MixedAppend.class.getSimpleName(), ChildBackends.class.getSimpleName());
        copyClasses(source, ChildJvm.class.getPackageName(), target, name -> shared.stream()
                .anyMatch(simple -> name.startsWith(simple + ".") || name.startsWith(simple + "$")));
    }

    private static void copyClasses(
            final Path source, final String packageName, final Path target, final Predicate<String> fileNames)
            throws IOException {
        final String packagePath = packageName.replace('.', File.separatorChar);
        final Path targetPackage = Files.createDirectories(target.resolve(packagePath));
        try (Stream<Path> classes = Files.list(source.resolve(packagePath))) {
            for (final Path file : (Iterable<Path>) classes::iterator) {
                if (Files.isRegularFile(file)
                        && fileNames.test(file.getFileName().toString())) {
                    Files.copy(file, targetPackage.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
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
    private static String childClassPath(final Class<?> mainClass, final Path childClasses) {
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
                    + mainClass.getName() + ": " + classPath + " (surefire useManifestOnlyJar hiding it?)");
        }
        return String.join(File.pathSeparator, kept);
    }
}
