package io.walden.testkit;

/**
 * One operation on a {@link SimulatedStorage}'s disk, as recorded in its history ({@link
 * SimulatedStorage#history()}). Replaying a prefix of the history gives the state of the disk had the
 * power failed right after it ({@link DiskHistory#crash}).
 *
 * <p>Submission and completion are separate events, because the SPI promises that a sync covers only
 * the writes (and a directory sync only the directory operations) whose completion was delivered
 * before the sync was submitted.
 *
 * <p><b>Threading:</b> immutable; the byte array of a {@link Write} is never changed after creation,
 * and must not be changed by its readers either.
 */
public sealed interface DiskEvent {
    /**
     * A file was created in the directory (synchronously, so its creation is delivered at once).
     *
     * @param inode the new file's identity.
     * @param name its name in the directory.
     */
    public record Create(int inode, String name) implements DiskEvent {}

    /**
     * A write was submitted; its bytes are in the page cache from now on.
     *
     * @param writeId identifies the write.
     * @param inode the file.
     * @param fileOffset where the bytes go.
     * @param bytes a copy of the bytes.
     */
    public record Write(long writeId, int inode, long fileOffset, byte[] bytes) implements DiskEvent {}

    /**
     * A write's completion was delivered to the log.
     *
     * @param writeId the write.
     * @param durable whether the write is durable on completion (O_DSYNC).
     */
    public record WriteDone(long writeId, boolean durable) implements DiskEvent {}

    /**
     * An fdatasync was submitted.
     *
     * @param syncId identifies the sync.
     * @param inode the file.
     */
    public record Sync(long syncId, int inode) implements DiskEvent {}

    /**
     * An fdatasync completed: the writes it covers are durable.
     *
     * @param syncId the sync.
     */
    public record SyncDone(long syncId) implements DiskEvent {}

    /**
     * A rename was performed (and submitted).
     *
     * @param opId identifies the directory operation.
     * @param source the old name.
     * @param target the new name.
     */
    public record Rename(long opId, String source, String target) implements DiskEvent {}

    /**
     * A delete was performed (and submitted).
     *
     * @param opId identifies the directory operation.
     * @param name the name removed.
     */
    public record Delete(long opId, String name) implements DiskEvent {}

    /**
     * A rename's or delete's completion was delivered.
     *
     * @param opId the directory operation.
     */
    public record DirectoryOpDone(long opId) implements DiskEvent {}

    /**
     * A directory fsync was submitted.
     *
     * @param syncId identifies the directory sync.
     */
    public record DirectorySync(long syncId) implements DiskEvent {}

    /**
     * A directory fsync completed: the directory operations it covers are durable.
     *
     * @param syncId the directory sync.
     */
    public record DirectorySyncDone(long syncId) implements DiskEvent {}

    /**
     * A short description for failure messages.
     *
     * @return the description, without the bytes of a write.
     */
    default String describe() {
        if (this instanceof Write write) {
            return "Write[id=" + write.writeId() + ", inode=" + write.inode() + ", offset=" + write.fileOffset()
                    + ", length=" + write.bytes().length + "]";
        }
        return toString();
    }
}
