package io.walden.groups;

import io.walden.WalConfig;
import io.walden.nio.NioStorageBackend;
import java.nio.file.Path;

/** The small logs the group log's tests open: 64 KiB segments and buffer, so purges free and relocate. */
final class TestGroupLogs {
    private TestGroupLogs() {}

    static WalConfig walConfig(final Path dir) {
        return WalConfig.builder(dir)
                .backend(new NioStorageBackend())
                .segmentCapacityBytes(64 * 1024)
                .bufferCapacityBytes(64 * 1024)
                .maxRecordBytes(16 * 1024)
                .build();
    }

    static GroupLog open(final Path dir, final int relocateAfterRounds, final int readers) {
        return GroupLog.open(GroupLogConfig.builder(walConfig(dir))
                .relocateAfterRounds(relocateAfterRounds)
                .readers(readers)
                .build());
    }
}
