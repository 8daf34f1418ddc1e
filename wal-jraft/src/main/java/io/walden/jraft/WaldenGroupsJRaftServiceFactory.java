package io.walden.jraft;

import com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.walden.groups.GroupLog;
import io.walden.groups.GroupLogConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * SOFAJRaft's service factory for a node with many Raft groups (RheaKV style, a {@code RaftGroupService}
 * per group) whose logs all live in ONE shared {@link GroupLog}: {@link #createLogStorage} returns a
 * {@link WaldenGroupLogStorage}, a view of one group of it; jraft's defaults do the rest (snapshots,
 * Raft meta, the entry codec). Give every node of the process the same factory: {@code
 * NodeOptions.setServiceFactory(factory)}.
 *
 * <p><b>Naming.</b> Each node's {@code logUri} names its group: the factory gives a new uri the next
 * group id and keeps the name durably in the log ({@link RaftGroupRegistry}: the key-values of group
 * {@value RaftGroupRegistry#DIRECTORY_GROUP_ID}), so that two uris never share a group, an id is never
 * given twice, and the same uri finds its group after a restart. No file or directory is made for the
 * uri: it is a name, compared byte for byte. A second view of a uri whose view is initialised is refused
 * ({@code init} returns false and logs why). The factory owns group {@value
 * RaftGroupRegistry#DIRECTORY_GROUP_ID} and every id it gives; anything else that writes the same group
 * log must keep to other ids (the factory gives them from 1 upward).
 *
 * <p><b>Lifecycle.</b> A factory made by {@link #open} owns its log and {@link #close} closes it; a
 * factory made with {@link #WaldenGroupsJRaftServiceFactory(GroupLog)} is given the log, and its owner
 * closes it ({@link #close} then does nothing). Either way: close the log only after every node using
 * the factory has shut down ({@code RaftGroupService.shutdown()} and {@code join()}); a view's {@code
 * shutdown} never closes it, and a view used after the log closed refuses every call. The factory
 * never purges: call {@code groupLog().purge()} periodically (after snapshots, for example) to free
 * the space of truncated prefixes.
 *
 * <p><b>jraft's executors.</b> With many groups per process, raise jraft 1.4.1's two process-wide pools
 * so that they never refuse a task: {@code -Djraft.closure.threadpool.size.max=2147483647
 * -Djraft.rpc.closure.threadpool.size.max=2147483647} (or register a group executor that never refuses,
 * {@code ThreadPoolsFactory.registerThreadPool}). Their defaults, max(64, 2 x cores) and max(100, 5 x
 * cores) threads with no queue, refuse tasks in a burst of writes to many groups, and a refused
 * replication wake-up leaves a group with a leader that never commits again (sofa-jraft issue 1271;
 * docs/design/wal-jraft.md). This is jraft's, with any log storage.
 *
 * <p><b>Threading:</b> thread-safe; views of different groups are created, initialised and used
 * concurrently.
 */
public final class WaldenGroupsJRaftServiceFactory extends DefaultJRaftServiceFactory implements AutoCloseable {
    private final GroupLog log;
    private final boolean ownsLog;
    private final RaftGroupRegistry registry;

    /**
     * Creates a factory on a log its caller owns (and closes, after every node using it shut down).
     *
     * @param log the shared group log.
     */
    public WaldenGroupsJRaftServiceFactory(final GroupLog log) {
        this(log, false);
    }

    private WaldenGroupsJRaftServiceFactory(final GroupLog log, final boolean ownsLog) {
        this.log = Objects.requireNonNull(log, "log");
        this.ownsLog = ownsLog;
        this.registry = new RaftGroupRegistry(log);
    }

    /**
     * Opens a group log and a factory that owns it: {@link #close} closes the log.
     *
     * @param config the group log's settings ({@link #defaultConfig} for the adapter's).
     * @return the factory.
     */
    public static WaldenGroupsJRaftServiceFactory open(final GroupLogConfig config) {
        return new WaldenGroupsJRaftServiceFactory(GroupLog.open(config), true);
    }

    /**
     * The group layer's defaults on {@link WaldenLogStorage#defaultConfig}: batches (one {@code
     * appendEntries} call of one group each) up to {@link WaldenLogStorage#DEFAULT_MAX_RECORD_BYTES}.
     *
     * @param directory the shared log's directory.
     * @return the settings.
     */
    public static GroupLogConfig defaultConfig(final Path directory) {
        return GroupLogConfig.builder(WaldenLogStorage.defaultConfig(directory)).build();
    }

    @Override
    public LogStorage createLogStorage(final String uri, final RaftOptions raftOptions) {
        return new WaldenGroupLogStorage(log, registry, Objects.requireNonNull(uri, "uri"));
    }

    /** @return the shared log. */
    public GroupLog groupLog() {
        return log;
    }

    /**
     * @param uri a node's log uri.
     * @return the id of its group in the shared log, or -1 if the uri has none yet.
     */
    public long groupId(final String uri) {
        return registry.groupId(uri);
    }

    /**
     * Removes a Raft group's log for good: its entries, key-values and name, in one atomic batch (a
     * destroyed region, for example). Its id is not given again.
     *
     * @param uri the log uri.
     * @return false if the uri has no group.
     * @throws IllegalStateException if a view of the group is initialised.
     */
    public boolean removeGroup(final String uri) {
        return registry.remove(uri);
    }

    /** Closes the log if this factory owns it ({@link #open}); otherwise does nothing. Idempotent. */
    @Override
    public void close() {
        if (ownsLog) {
            log.close();
        }
    }
}
