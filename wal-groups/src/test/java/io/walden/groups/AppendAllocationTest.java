package io.walden.groups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import io.walden.WalConfig;
import io.walden.nio.NioStorageBackend;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The append path allocates nothing: a reused batch over several groups, appended many times, takes
 * no heap on the appending thread once warm (the groups' index arrays are full size from the start:
 * each append replaces the entries it wrote before).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AppendAllocationTest {
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;

    @TempDir
    Path dir;

    @Test
    void aReusedBatchOverSeveralGroupsAllocatesNothing() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final byte[] entry = new byte[200];
        final GroupBatch batch = new GroupBatch();
        try (GroupLog log = GroupLog.open(
                WalConfig.builder(dir).backend(new NioStorageBackend()).build())) {
            long allocated = 0;
            for (int round = 0; round < WARM_UP + MEASURED; round++) {
                if (round == WARM_UP) {
                    allocated = threads.getThreadAllocatedBytes(thread);
                }
                batch.clear();
                for (int g = 0; g < 5; g++) {
                    batch.add(g, 1 + (round & 7), entry);
                }
                log.append(batch, Durability.BUFFERED);
            }
            allocated = threads.getThreadAllocatedBytes(thread) - allocated;
            assertTrue(allocated < MEASURED, allocated + " bytes allocated over " + MEASURED + " appends");
        }
    }
}
