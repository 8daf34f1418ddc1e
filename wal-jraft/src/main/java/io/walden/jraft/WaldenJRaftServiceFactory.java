package io.walden.jraft;

import com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.WalConfig;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * SOFAJRaft's service factory with {@link WaldenLogStorage} as the log storage, jraft's defaults for
 * the rest (snapshots, Raft meta, the entry codec). Set it with {@code
 * NodeOptions.setServiceFactory(new WaldenJRaftServiceFactory())}; the node's {@code logUri} is the
 * Walden log's directory.
 *
 * <p><b>Threading:</b> immutable and thread-safe.
 */
public class WaldenJRaftServiceFactory extends DefaultJRaftServiceFactory {
    private final Function<Path, WalConfig> configs;

    /** Creates the factory: Walden's default configuration in each log directory. */
    public WaldenJRaftServiceFactory() {
        this(directory -> WalConfig.builder(directory).build());
    }

    /**
     * Creates the factory with a configuration of the caller's.
     *
     * @param configs makes a log's configuration for its directory.
     */
    public WaldenJRaftServiceFactory(final Function<Path, WalConfig> configs) {
        this.configs = configs;
    }

    @Override
    public LogStorage createLogStorage(final String uri, final RaftOptions raftOptions) {
        return new WaldenLogStorage(Path.of(uri), configs);
    }
}
