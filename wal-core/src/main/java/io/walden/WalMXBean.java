package io.walden;

/**
 * A log's counters and positions as a JMX MXBean, for the monitoring a service already runs (JConsole,
 * a JMX exporter such as Prometheus' jmx_exporter). Registered by {@link Wal#registerMBean()} under
 * {@code io.walden:type=Wal,directory="<the log directory>"}, and unregistered when the log closes.
 * Every attribute is read from a fresh {@link Wal#stats()} snapshot; see {@link WalStats} for what
 * each means.
 *
 * <p><b>Threading:</b> any thread (JMX calls come on the MBean server's threads).
 */
public interface WalMXBean {
    /** @return the log directory. */
    String getDirectory();

    /** @return the storage backend's name. */
    String getBackend();

    /** @return the file system type that holds the log, or {@code unknown}. */
    String getFileSystemType();

    /** @return false when the file system lives in memory: {@code SYNCED} then survives no power loss. */
    boolean isSurvivesPowerLoss();

    /** @return records framed since the log was opened. */
    long getAppends();

    /** @return payload bytes of those records. */
    long getAppendBytes();

    /** @return write requests completed. */
    long getWrites();

    /** @return data syncs completed. */
    long getSyncs();

    /** @return records newly covered per sync, mean. */
    double getRecordsPerSyncMean();

    /** @return median time an operation that made records durable took, microseconds. */
    double getSyncLatencyP50Micros();

    /** @return 99th percentile of that time, microseconds. */
    double getSyncLatencyP99Micros();

    /** @return longest such time, microseconds. */
    double getSyncLatencyMaxMicros();

    /** @return appends that found the buffer full and waited. */
    long getBackPressureWaits();

    /** @return segments the log moved past. */
    long getSegmentsRolled();

    /** @return the first position the log holds. */
    long getStartPosition();

    /** @return where the next record goes. */
    long getTailPosition();

    /** @return records below it are written to the file. */
    long getWrittenPosition();

    /** @return records below it are durable. */
    long getDurablePosition();

    /** @return bytes appended but not yet durable: tail minus durable position. */
    long getUndurableBytes();

    /** @return records stored compressed. */
    long getRecordsCompressed();

    /** @return those records' bytes as appended. */
    long getCompressedInputBytes();

    /** @return their bytes as stored. */
    long getCompressedStoredBytes();

    /** @return whether the log failed: it acknowledges nothing more and must be reopened. */
    boolean isFailed();

    /** @return what failed, or null. */
    String getFailure();
}
