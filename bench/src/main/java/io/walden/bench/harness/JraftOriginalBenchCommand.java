package io.walden.bench.harness;

import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.bench.BenchFiles;
import io.walden.bench.harness.RaftStorageWorkload.Store;
import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs jraft's own {@code com.alipay.sofa.jraft.storage.impl.LogStorageBenchmark}, unchanged, on a
 * store of our choosing. The class is in jraft-core's tests, which jraft does not publish (no test
 * jar), so the user compiles it from a sofa-jraft checkout and passes the classes with {@code
 * --classes}. Its {@code main()} hard-codes {@code new RocksDBSegmentLogStorage(user.dir/log_storage,
 * new RaftOptions())} and the sizes, so this command does what that main does with another store:
 * it opens the store the same way (a {@code new ConfigurationManager()} and {@code
 * LogEntryV2CodecFactory}), calls the class's public constructor {@code (LogStorage, logSize,
 * totalLogs, batchSize)} and its private {@code doTest()} by reflection. The class prints its own
 * report and exits the JVM with status 1 on a failure, as it does under jraft.
 *
 * <p><b>Threading:</b> the main thread.
 */
@Command(
        name = "jraft-storage-benchmark",
        mixinStandardHelpOptions = true,
        description = "Runs jraft's own LogStorageBenchmark class (compiled from jraft's test sources, --classes)"
                + " unchanged, on Walden or a jraft store.")
public final class JraftOriginalBenchCommand implements Callable<Integer> {
    static final String BENCHMARK_CLASS = "com.alipay.sofa.jraft.storage.impl.LogStorageBenchmark";

    @Option(
            names = "--classes",
            required = true,
            description = "directories or jars (separated by the path separator, ':' on Linux) holding jraft's compiled"
                    + " LogStorageBenchmark and com.alipay.sofa.jraft.test.TestUtils")
    String classes;

    @Option(
            names = "--store",
            defaultValue = "walden",
            description = "walden, rocksdb or rocksdb-segment (what jraft's main() uses) (default walden)")
    String store;

    @Option(names = "--entries", defaultValue = "1048576", description = "totalLogs (jraft: 1048576)")
    int entries;

    @Option(names = "--entry-bytes", defaultValue = "16384", description = "logSize (jraft: 16384)")
    int entryBytes;

    @Option(names = "--batch", defaultValue = "100", description = "batchSize (jraft: 100)")
    int batch;

    @Option(names = "--dir", description = "directory for the store; default a fresh one under target/")
    Path dir;

    @Option(names = "--keep", description = "keep the store's directory")
    boolean keep;

    @Spec
    CommandSpec spec;

    /** Creates the command; picocli sets the options. */
    public JraftOriginalBenchCommand() {}

    @Override
    public Integer call() throws Exception {
        final Store chosen;
        try {
            chosen = Store.of(store);
        } catch (final IllegalArgumentException ex) {
            throw new CommandLine.ParameterException(spec.commandLine(), ex.getMessage());
        }
        final List<URL> urls = new ArrayList<>();
        for (final String entry : classes.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                urls.add(Path.of(entry.trim()).toUri().toURL());
            }
        }
        // Parent: this jar's loader, so LogStorage and the stores are the same classes on both sides.
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(new URL[0]), JraftOriginalBenchCommand.class.getClassLoader())) {
            final Class<?> benchmark;
            try {
                benchmark = Class.forName(BENCHMARK_CLASS, true, loader);
            } catch (final ClassNotFoundException ex) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "no " + BENCHMARK_CLASS + " in --classes " + classes);
            }
            final Constructor<?> constructor =
                    benchmark.getConstructor(LogStorage.class, int.class, int.class, int.class);
            final Method doTest = benchmark.getDeclaredMethod("doTest");
            doTest.setAccessible(true);
            final Path directory = dir != null ? dir : BenchFiles.freshDirectory("jraft-storage-benchmark-");
            final Path path = directory.resolve("log_storage");
            System.out.println("Test log storage path: " + path + " (" + chosen.id + ")");
            final LogStorage logStorage = chosen.open(path);
            // The class calls System.exit(1) on a failure: the directory goes then as well.
            final Thread cleanup = new Thread(() -> BenchFiles.deleteRecursively(directory), "cleanup");
            if (dir == null && !keep) {
                Runtime.getRuntime().addShutdownHook(cleanup);
            }
            try {
                doTest.invoke(constructor.newInstance(logStorage, entryBytes, entries, batch));
            } catch (final InvocationTargetException ex) {
                throw ex.getCause() instanceof Exception cause ? cause : ex;
            } finally {
                logStorage.shutdown();
                if (dir == null && !keep) {
                    Runtime.getRuntime().removeShutdownHook(cleanup);
                    BenchFiles.deleteRecursively(directory);
                }
            }
        }
        return 0;
    }
}
