package io.walden.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's resident memory and thread count as the kernel sees them ({@code /proc/self/status}):
 * native threads and memory (RocksDB's) count, which the JVM's own beans do not see.
 *
 * <p><b>Threading:</b> stateless.
 */
final class ProcessStatus {
    private static final Path STATUS = Path.of("/proc/self/status");

    private ProcessStatus() {}

    /**
     * Resident memory.
     *
     * @return bytes, or -1 where {@code /proc} is missing.
     */
    static long residentBytes() {
        final long kib = field("VmRSS:");
        return kib < 0 ? -1 : kib * 1024;
    }

    /**
     * Threads of the process, JVM and native.
     *
     * @return the count, or -1 where {@code /proc} is missing.
     */
    static int threads() {
        return (int) field("Threads:");
    }

    private static long field(final String name) {
        try {
            for (final String line : Files.readAllLines(STATUS)) {
                if (line.startsWith(name)) {
                    return Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]);
                }
            }
            return -1;
        } catch (final IOException | RuntimeException ex) {
            return -1;
        }
    }
}
