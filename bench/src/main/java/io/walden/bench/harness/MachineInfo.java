package io.walden.bench.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Describes the machine a run measured: kernel, CPUs, memory, the file system and block device of
 * the log directory, the JDK and fio. Everything is read from {@code /proc}, {@code /sys} and the
 * JDK; what cannot be read is reported as unknown.
 *
 * <p><b>Threading:</b> stateless.
 */
final class MachineInfo {
    private MachineInfo() {}

    /**
     * Describes the machine.
     *
     * @param directory the directory the logs go to.
     * @param fioVersion fio's version, or null if fio is not installed.
     * @return name to value, in display order.
     */
    static Map<String, String> describe(final Path directory, final String fioVersion) {
        final Map<String, String> info = new LinkedHashMap<>();
        info.put(
                "kernel",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " ("
                        + System.getProperty("os.arch") + ")");
        info.put("CPUs", Runtime.getRuntime().availableProcessors() + " x " + cpuModel());
        info.put("memory", memTotal());
        String device = "unknown";
        try {
            final FileStore store = Files.getFileStore(directory);
            info.put("file system", store.type() + " on " + store.name() + " (" + directory + ")");
            device = store.name();
        } catch (final IOException ex) {
            info.put("file system", "unknown: " + ex.getMessage());
        }
        info.put("disk", disk(device));
        info.put(
                "JDK",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + ", "
                        + String.join(" ", gcNames()));
        info.put("fio", fioVersion == null ? "not installed" : fioVersion);
        return info;
    }

    private static List<String> gcNames() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(bean -> bean.getName())
                .toList();
    }

    private static String cpuModel() {
        return read(Path.of("/proc/cpuinfo"))
                .lines()
                .filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).trim())
                .findFirst()
                .orElse("unknown model");
    }

    private static String memTotal() {
        return read(Path.of("/proc/meminfo"))
                .lines()
                .filter(line -> line.startsWith("MemTotal:"))
                .map(line -> {
                    final long kib = Long.parseLong(line.replaceAll("\\D", ""));
                    return String.format("%.1f GiB", kib / (1024.0 * 1024.0));
                })
                .findFirst()
                .orElse("unknown");
    }

    private static String disk(final String device) {
        if (!device.startsWith("/dev/")) {
            return "unknown (" + device + ")";
        }
        String name = device.substring("/dev/".length());
        Path block = Path.of("/sys/class/block", name);
        if (Files.exists(block.resolve("partition"))) {
            // A partition: the queue attributes live on its parent disk.
            try {
                name = block.toRealPath().getParent().getFileName().toString();
                block = Path.of("/sys/class/block", name);
            } catch (final IOException ex) {
                return device;
            }
        }
        final String model = read(block.resolve("device/model")).trim();
        final String rotational = read(block.resolve("queue/rotational")).trim();
        final String cache = read(block.resolve("queue/write_cache")).trim();
        final String scheduler = read(block.resolve("queue/scheduler")).trim();
        final String sectors = read(block.resolve("size")).trim();
        final String size = sectors.isEmpty()
                ? "?"
                : String.format("%.0f GiB", Long.parseLong(sectors) * 512.0 / (1024.0 * 1024 * 1024));
        return name + (model.isEmpty() ? "" : " " + model) + ", " + size + ", "
                + ("0".equals(rotational) ? "non-rotational" : "1".equals(rotational) ? "rotational" : "?")
                + ", write cache " + (cache.isEmpty() ? "?" : cache) + ", scheduler "
                + (scheduler.isEmpty() ? "?" : scheduler);
    }

    private static String read(final Path file) {
        try {
            return Files.readString(file);
        } catch (final IOException | RuntimeException ex) {
            return "";
        }
    }
}
