package io.walden.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.bench.Main;
import io.walden.bench.harness.RaftStorageWorkload.Indexes;
import io.walden.bench.harness.RaftStorageWorkload.Result;
import io.walden.bench.harness.RaftStorageWorkload.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** jraft's LogStorageBenchmark workload runs on both stores, in this JVM, and its figures parse back. */
class RaftStorageBenchCommandTest {
    @TempDir
    Path directory;

    @Test
    void shouldWriteAndReadEveryEntryOnBothStoresWithContiguousIndexes() {
        final RaftStorageWorkload workload = new RaftStorageWorkload(250, 1000, 100, Indexes.CONTIGUOUS);
        for (final Store store : new Store[] {Store.WALDEN, Store.ROCKSDB}) {
            final Result result = workload.run(store, 1, directory.resolve(store.id));
            // Like jraft's loop, the last batch is full.
            assertEquals(300, result.entries(), store.id);
            assertTrue(result.writesPerS() > 0 && result.readsPerS() > 0, result.toLine());
            assertEquals(result.toLine(), Result.fromLine(result.toLine()).toLine());
        }
    }

    @Test
    void shouldRunJraftIndexesOnRocksDb() {
        final Result result = new RaftStorageWorkload(150, 100, 50, Indexes.JRAFT)
                .run(Store.ROCKSDB, 2, directory.resolve("rocksdb"));
        assertEquals(150, result.entries());
    }

    @Test
    void shouldPairTheStoresInThisJvmAndLeaveNoFileBehind() throws Exception {
        final Path base = directory.resolve("runs");
        assertEquals(
                0,
                Main.commandLine()
                        .execute(
                                "raft-storage-bench",
                                "--in-process",
                                "--rounds=2",
                                "--entries=200",
                                "--entry-bytes=256",
                                "--dir=" + base));
        try (var files = Files.list(base)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void shouldRefuseAnUnknownStore() {
        assertEquals(2, Main.commandLine().execute("raft-storage-bench", "--stores=walden,etcd", "--dir=" + directory));
    }

    @Test
    void shouldTakeTheMiddleOrTheMeanOfTheMiddleTwo() {
        assertEquals(2.0, RaftStorageBenchCommand.median(new double[] {3, 1, 2}));
        assertEquals(2.5, RaftStorageBenchCommand.median(new double[] {4, 1, 3, 2}));
    }
}
