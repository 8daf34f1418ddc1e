package io.walden.internal;

import io.walden.WalException;
import io.walden.WalMXBean;
import io.walden.WalStats;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.function.Supplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * A log's {@link WalMXBean}: every attribute from a fresh stats snapshot; and its registration with
 * the platform MBean server under {@code io.walden:type=Wal,directory="..."}.
 *
 * <p><b>Threading:</b> attributes are read on any thread; {@link #register} and {@link #unregister}
 * by the thread that holds the log's close lock.
 */
public final class WalMonitor implements WalMXBean {
    private static final System.Logger LOGGER = System.getLogger(WalMonitor.class.getName());

    private final Path directory;
    private final Supplier<WalStats> stats;
    private ObjectName registeredName;

    public WalMonitor(final Path directory, final Supplier<WalStats> stats) {
        this.directory = directory;
        this.stats = stats;
    }

    public static ObjectName objectName(final Path directory) {
        try {
            return new ObjectName("io.walden:type=Wal,directory=" + ObjectName.quote(directory.toString()));
        } catch (final MalformedObjectNameException ex) {
            throw new IllegalStateException("a quoted directory always makes a valid name: " + directory, ex);
        }
    }

    public ObjectName register() {
        if (registeredName != null) {
            return registeredName;
        }
        final ObjectName name = objectName(directory);
        try {
            ManagementFactory.getPlatformMBeanServer()
                    .registerMBean(new StandardMBean(this, WalMXBean.class, true), name);
        } catch (final InstanceAlreadyExistsException ex) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "cannot register the log's MBean: " + name + " is registered already (by a log of the same"
                            + " directory in another class loader, or by other code); unregister it first",
                    ex);
        } catch (final JMException ex) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, "cannot register the log's MBean " + name + ": " + ex, ex);
        }
        registeredName = name;
        return name;
    }

    /** Unregisters the bean, if registered; a failure is logged, never thrown (the log is closing). */
    public void unregister() {
        final ObjectName name = registeredName;
        if (name == null) {
            return;
        }
        registeredName = null;
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            server.unregisterMBean(name);
        } catch (final InstanceNotFoundException ex) {
            // Unregistered by someone else meanwhile: nothing left to do.
        } catch (final JMException | RuntimeException ex) {
            LOGGER.log(System.Logger.Level.WARNING, "could not unregister the MBean " + name, ex);
        }
    }

    @Override
    public String getDirectory() {
        return directory.toString();
    }

    @Override
    public String getBackend() {
        return stats.get().backend();
    }

    @Override
    public String getFileSystemType() {
        return stats.get().fileSystemType();
    }

    @Override
    public boolean isSurvivesPowerLoss() {
        return stats.get().survivesPowerLoss();
    }

    @Override
    public long getAppends() {
        return stats.get().appends();
    }

    @Override
    public long getAppendBytes() {
        return stats.get().appendBytes();
    }

    @Override
    public long getWrites() {
        return stats.get().writes();
    }

    @Override
    public long getSyncs() {
        return stats.get().syncs();
    }

    @Override
    public double getRecordsPerSyncMean() {
        return stats.get().recordsPerSyncMean();
    }

    @Override
    public double getSyncLatencyP50Micros() {
        return percentileMicros(50);
    }

    @Override
    public double getSyncLatencyP99Micros() {
        return percentileMicros(99);
    }

    @Override
    public double getSyncLatencyMaxMicros() {
        return stats.get().syncLatency().maxNs() / 1e3;
    }

    @Override
    public long getBackPressureWaits() {
        return stats.get().backPressureWaits();
    }

    @Override
    public long getSegmentsRolled() {
        return stats.get().segmentsRolled();
    }

    @Override
    public long getStartPosition() {
        return stats.get().startPosition();
    }

    @Override
    public long getTailPosition() {
        return stats.get().tailPosition();
    }

    @Override
    public long getWrittenPosition() {
        return stats.get().writtenPosition();
    }

    @Override
    public long getDurablePosition() {
        return stats.get().durablePosition();
    }

    @Override
    public long getUndurableBytes() {
        final WalStats snapshot = stats.get();
        return Math.max(0, snapshot.tailPosition() - snapshot.durablePosition());
    }

    @Override
    public long getRecordsCompressed() {
        return stats.get().recordsCompressed();
    }

    @Override
    public long getCompressedInputBytes() {
        return stats.get().compressedInputBytes();
    }

    @Override
    public long getCompressedStoredBytes() {
        return stats.get().compressedStoredBytes();
    }

    @Override
    public boolean isFailed() {
        return stats.get().failed();
    }

    @Override
    public String getFailure() {
        return stats.get().failure();
    }

    private double percentileMicros(final double percentile) {
        final var histogram = stats.get().syncLatency();
        return histogram.count() == 0 ? 0 : histogram.percentileNs(percentile) / 1e3;
    }
}
