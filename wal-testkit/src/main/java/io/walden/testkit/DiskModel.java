package io.walden.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * What a disk holds after a prefix of a {@link SimulatedDisk}'s events: per file, the bytes a completed
 * sync made durable apart from the writes that are only in the page cache; for the directory, the
 * entries a completed directory sync made durable apart from creates, renames and deletes that are not.
 *
 * <p>{@link #crash} builds a post-crash directory from the durable state plus a random choice among what
 * was not durable: each 4 KiB page touched by an unsynced write survives in any of its versions (none,
 * the newest, or one in between; a later page may survive while an earlier one is lost), a page may be
 * torn at 512-byte sectors between two of its versions, unsynced directory operations are forgotten
 * (as a prefix, as a journaling file system would, or as any subset, which is all POSIX promises), and
 * a file's size may revert to its last synced size.
 *
 * <p>The SPI rule decides what a sync covers: the writes whose completion was delivered before the
 * sync was submitted. Writes delivered later stay unsynced even if the sync completes after them.
 *
 * <p><b>Threading:</b> not thread-safe; owned by the thread that replays and crashes.
 */
final class DiskModel {
    /** Page-cache page: the unit the kernel writes back, in any order. */
    static final int PAGE_BYTES = 4096;
    /** Sector: the unit a device writes atomically. */
    static final int SECTOR_BYTES = 512;

    private static final double[] KEEP_PROBABILITIES = {0.0, 0.25, 0.5, 0.75, 0.9, 1.0};
    private static final double[] TEAR_PROBABILITIES = {0.0, 0.0, 0.2, 0.5};
    private static final double[] DIRECTORY_KEEP_PROBABILITIES = {0.0, 0.5, 1.0};

    /**
     * A file present when the disk was created: all of it is durable.
     *
     * @param inode its identity.
     * @param name its name.
     * @param content its bytes.
     */
    record InitialFile(int inode, String name, byte[] content) {}

    /**
     * The files of a post-crash directory, by name, and the choices that made them.
     *
     * @param files each file's content.
     * @param choices what the crash kept, lost and tore.
     */
    record Image(SortedMap<String, byte[]> files, CrashReport.Builder choices) {
        /**
         * Writes the files into a directory.
         *
         * @param target the directory, which holds none of them.
         * @throws IOException if a file cannot be written.
         */
        void writeTo(final Path target) throws IOException {
            for (final Map.Entry<String, byte[]> file : files.entrySet()) {
                SparseFiles.write(target.resolve(file.getKey()), file.getValue());
            }
        }
    }

    /** A write not yet durable. */
    private record PendingWrite(long writeId, long fileOffset, byte[] bytes) {}

    /** Per file: durable bytes and size, and the unsynced writes in submission order. */
    private static final class FileState {
        byte[] durable = new byte[0];
        long durableSizeBytes;
        long cacheSizeBytes;
        final LinkedHashMap<Long, PendingWrite> pending = new LinkedHashMap<>();
        final HashSet<Long> delivered = new HashSet<>();

        void makeDurable(final PendingWrite write) {
            final long end = write.fileOffset() + write.bytes().length;
            if (end > durable.length) {
                durable = Arrays.copyOf(durable, (int) end);
            }
            System.arraycopy(write.bytes(), 0, durable, (int) write.fileOffset(), write.bytes().length);
            durableSizeBytes = Math.max(durableSizeBytes, end);
            pending.remove(write.writeId());
            delivered.remove(write.writeId());
        }
    }

    /**
     * A directory operation not yet durable, with the inode it acted on. A persisted entry names the
     * inode the operation saw, whatever else was forgotten: a kept rename of {@code x.tmp} created
     * the second time names that second file, even if the second create and the delete of the first
     * were forgotten.
     */
    private record DirectoryOp(long opId, String kind, int inode, String name, String target) {
        void applyTo(final Map<String, Integer> directory) {
            switch (kind) {
                case "create" -> directory.put(name, inode);
                case "rename" -> {
                    directory.remove(name, inode);
                    directory.put(target, inode);
                }
                case "delete" -> directory.remove(name, inode);
                default -> throw new AssertionError(kind);
            }
        }

        @Override
        public String toString() {
            return kind + " " + name + ("rename".equals(kind) ? " -> " + target : "");
        }
    }

    private final Map<Integer, FileState> files = new HashMap<>();
    private final Map<Long, Integer> writeInodes = new HashMap<>();
    private final TreeMap<String, Integer> durableDirectory = new TreeMap<>();
    // The directory as the running system sees it (the page cache's view), to know which inode each
    // rename and delete acted on.
    private final Map<String, Integer> liveDirectory = new HashMap<>();
    private final LinkedHashMap<Long, DirectoryOp> pendingDirectoryOps = new LinkedHashMap<>();
    private final HashSet<Long> deliveredDirectoryOps = new HashSet<>();
    private final Map<Long, List<Long>> syncCaptures = new HashMap<>();
    private final Map<Long, List<Long>> directorySyncCaptures = new HashMap<>();
    private long createOpIds = -1;
    private int appliedCount;

    /**
     * Starts from the files a disk was created with, all durable.
     *
     * @param initialFiles the files.
     */
    DiskModel(final List<InitialFile> initialFiles) {
        for (final InitialFile file : initialFiles) {
            final FileState state = new FileState();
            state.durable = file.content().clone();
            state.durableSizeBytes = file.content().length;
            state.cacheSizeBytes = file.content().length;
            files.put(file.inode(), state);
            durableDirectory.put(file.name(), file.inode());
            liveDirectory.put(file.name(), file.inode());
        }
    }

    private int liveInode(final String name) {
        final Integer inode = liveDirectory.get(name);
        if (inode == null) {
            throw new AssertionError("directory operation on " + name + ", which does not exist");
        }
        return inode;
    }

    /** @return how many events were applied. */
    int appliedCount() {
        return appliedCount;
    }

    /**
     * Applies the next event.
     *
     * @param event the event.
     */
    void apply(final DiskEvent event) {
        appliedCount++;
        if (event instanceof DiskEvent.Create create) {
            create(create);
        } else if (event instanceof DiskEvent.Write write) {
            write(write);
        } else if (event instanceof DiskEvent.WriteDone done) {
            writeDone(done);
        } else if (event instanceof DiskEvent.Sync sync) {
            sync(sync);
        } else if (event instanceof DiskEvent.SyncDone done) {
            syncDone(done);
        } else if (event instanceof DiskEvent.Rename rename) {
            rename(rename);
        } else if (event instanceof DiskEvent.Delete delete) {
            delete(delete);
        } else if (event instanceof DiskEvent.DirectoryOpDone done) {
            deliveredDirectoryOps.add(done.opId());
        } else if (event instanceof DiskEvent.DirectorySync sync) {
            directorySync(sync);
        } else if (event instanceof DiskEvent.DirectorySyncDone done) {
            directorySyncDone(done);
        } else {
            throw new AssertionError("unknown event " + event);
        }
    }

    private void create(final DiskEvent.Create create) {
        files.put(create.inode(), new FileState());
        liveDirectory.put(create.name(), create.inode());
        // Creation is synchronous: its completion is delivered at once.
        final long opId = createOpIds--;
        pendingDirectoryOps.put(opId, new DirectoryOp(opId, "create", create.inode(), create.name(), null));
        deliveredDirectoryOps.add(opId);
    }

    private void write(final DiskEvent.Write write) {
        final FileState file = files.get(write.inode());
        file.pending.put(write.writeId(), new PendingWrite(write.writeId(), write.fileOffset(), write.bytes()));
        file.cacheSizeBytes = Math.max(file.cacheSizeBytes, write.fileOffset() + write.bytes().length);
        writeInodes.put(write.writeId(), write.inode());
    }

    private void writeDone(final DiskEvent.WriteDone done) {
        final FileState file = files.get(writeInodes.get(done.writeId()));
        if (done.durable()) {
            file.makeDurable(file.pending.get(done.writeId()));
        } else {
            file.delivered.add(done.writeId());
        }
    }

    /** A sync covers the writes of its file delivered when it is issued. */
    private void sync(final DiskEvent.Sync sync) {
        final FileState file = files.get(sync.inode());
        final List<Long> covered = new ArrayList<>();
        for (final Long writeId : file.pending.keySet()) {
            if (file.delivered.contains(writeId)) {
                covered.add(writeId);
            }
        }
        syncCaptures.put(sync.syncId(), covered);
    }

    private void syncDone(final DiskEvent.SyncDone done) {
        for (final Long writeId : syncCaptures.remove(done.syncId())) {
            final FileState file = files.get(writeInodes.get(writeId));
            final PendingWrite write = file.pending.get(writeId);
            if (write != null) {
                file.makeDurable(write);
            }
        }
    }

    private void rename(final DiskEvent.Rename rename) {
        final int inode = liveInode(rename.source());
        liveDirectory.remove(rename.source());
        liveDirectory.put(rename.target(), inode);
        pendingDirectoryOps.put(
                rename.opId(), new DirectoryOp(rename.opId(), "rename", inode, rename.source(), rename.target()));
    }

    private void delete(final DiskEvent.Delete delete) {
        final Integer inode = liveDirectory.remove(delete.name());
        if (inode != null) {
            pendingDirectoryOps.put(
                    delete.opId(), new DirectoryOp(delete.opId(), "delete", inode, delete.name(), null));
        } else {
            // Deleting a name that does not exist changes nothing.
            pendingDirectoryOps.put(delete.opId(), new DirectoryOp(delete.opId(), "delete", -1, delete.name(), null));
        }
    }

    /** A directory sync covers the directory operations delivered when it is issued. */
    private void directorySync(final DiskEvent.DirectorySync sync) {
        final List<Long> covered = new ArrayList<>();
        for (final Long opId : pendingDirectoryOps.keySet()) {
            if (deliveredDirectoryOps.contains(opId)) {
                covered.add(opId);
            }
        }
        directorySyncCaptures.put(sync.syncId(), covered);
    }

    private void directorySyncDone(final DiskEvent.DirectorySyncDone done) {
        for (final Long opId : directorySyncCaptures.remove(done.syncId())) {
            final DirectoryOp op = pendingDirectoryOps.remove(opId);
            if (op != null) {
                op.applyTo(durableDirectory);
                deliveredDirectoryOps.remove(opId);
            }
        }
    }

    /**
     * Makes the files of a post-crash directory: the durable state plus a random choice among what is
     * not durable. Does not change the model.
     *
     * @param random the source of every choice.
     * @return the files and the choices made.
     */
    Image crash(final SplittableRandom random) {
        final CrashReport.Builder choices = new CrashReport.Builder();
        final TreeMap<String, Integer> directory = crashDirectory(random, choices);
        final double keepProbability = KEEP_PROBABILITIES[random.nextInt(KEEP_PROBABILITIES.length)];
        final double tearProbability = TEAR_PROBABILITIES[random.nextInt(TEAR_PROBABILITIES.length)];
        final boolean mayRevertSize = random.nextBoolean();
        choices.pageSettings(keepProbability, tearProbability, mayRevertSize);
        final TreeMap<String, byte[]> contents = new TreeMap<>();
        for (final Map.Entry<String, Integer> entry : directory.entrySet()) {
            contents.put(
                    entry.getKey(),
                    crashContent(
                            files.get(entry.getValue()),
                            entry.getKey(),
                            random,
                            keepProbability,
                            tearProbability,
                            mayRevertSize,
                            choices));
        }
        return new Image(contents, choices);
    }

    private TreeMap<String, Integer> crashDirectory(final SplittableRandom random, final CrashReport.Builder choices) {
        final TreeMap<String, Integer> directory = new TreeMap<>(durableDirectory);
        if (pendingDirectoryOps.isEmpty()) {
            choices.directoryAllDurable();
            return directory;
        }
        final boolean prefix = random.nextBoolean();
        final double keepProbability =
                DIRECTORY_KEEP_PROBABILITIES[random.nextInt(DIRECTORY_KEEP_PROBABILITIES.length)];
        final int prefixLength = random.nextInt(pendingDirectoryOps.size() + 1);
        choices.directoryMode(prefix);
        int index = 0;
        for (final DirectoryOp op : pendingDirectoryOps.values()) {
            final boolean keep = prefix ? index < prefixLength : random.nextDouble() < keepProbability;
            choices.directoryOperation(keep, op);
            if (keep) {
                op.applyTo(directory);
            }
            index++;
        }
        choices.directoryDone();
        return directory;
    }

    private static byte[] crashContent(
            final FileState file,
            final String name,
            final SplittableRandom random,
            final double keepProbability,
            final double tearProbability,
            final boolean mayRevertSize,
            final CrashReport.Builder choices) {
        long sizeBytes = file.cacheSizeBytes;
        if (mayRevertSize && file.cacheSizeBytes != file.durableSizeBytes && random.nextBoolean()) {
            sizeBytes = file.durableSizeBytes;
            choices.sizeReverted(name, sizeBytes);
        }
        final byte[] content = new byte[(int) sizeBytes];
        System.arraycopy(file.durable, 0, content, 0, (int) Math.min(file.durable.length, sizeBytes));
        // Pages touched by unsynced writes, each with the writes that touched it, oldest first.
        final TreeMap<Long, List<PendingWrite>> pages = new TreeMap<>();
        for (final PendingWrite write : file.pending.values()) {
            final long end = write.fileOffset() + write.bytes().length;
            for (long page = write.fileOffset() / PAGE_BYTES; page * PAGE_BYTES < end; page++) {
                pages.computeIfAbsent(page, key -> new ArrayList<>()).add(write);
            }
        }
        for (final Map.Entry<Long, List<PendingWrite>> entry : pages.entrySet()) {
            final long pageStart = entry.getKey() * PAGE_BYTES;
            if (pageStart >= sizeBytes) {
                break;
            }
            final List<PendingWrite> writes = entry.getValue();
            final byte[][] versions = pageVersions(content, pageStart, writes);
            final int newest = writes.size();
            final double draw = random.nextDouble();
            final int chosen = draw < keepProbability
                    ? newest
                    : draw < keepProbability + (1 - keepProbability) / 2 ? 0 : random.nextInt(newest + 1);
            byte[] page = versions[chosen];
            int tornMask = -1;
            int tornAgainst = -1;
            if (chosen > 0 && random.nextDouble() < tearProbability) {
                tornAgainst = random.nextInt(chosen);
                tornMask = random.nextInt(1 << (PAGE_BYTES / SECTOR_BYTES));
                page = page.clone();
                for (int sector = 0; sector < PAGE_BYTES / SECTOR_BYTES; sector++) {
                    if ((tornMask & (1 << sector)) == 0) {
                        System.arraycopy(
                                versions[tornAgainst],
                                sector * SECTOR_BYTES,
                                page,
                                sector * SECTOR_BYTES,
                                SECTOR_BYTES);
                    }
                }
            }
            if (chosen != 0) {
                System.arraycopy(page, 0, content, (int) pageStart, (int) Math.min(PAGE_BYTES, sizeBytes - pageStart));
            }
            choices.page(name, pageStart, chosen, newest, tornAgainst, tornMask);
        }
        return content;
    }

    /**
     * The versions a page went through: index 0 is the durable content, index i the content after the
     * i-th unsynced write that touched it.
     */
    private static byte[][] pageVersions(
            final byte[] durableContent, final long pageStart, final List<PendingWrite> writes) {
        final byte[][] versions = new byte[writes.size() + 1][];
        final byte[] page = new byte[PAGE_BYTES];
        final int available = (int) Math.max(0, Math.min(PAGE_BYTES, durableContent.length - pageStart));
        if (available > 0) {
            System.arraycopy(durableContent, (int) pageStart, page, 0, available);
        }
        versions[0] = page.clone();
        for (int i = 0; i < writes.size(); i++) {
            final PendingWrite write = writes.get(i);
            final long from = Math.max(pageStart, write.fileOffset());
            final long to = Math.min(pageStart + PAGE_BYTES, write.fileOffset() + write.bytes().length);
            System.arraycopy(write.bytes(), (int) (from - write.fileOffset()), page, (int) (from - pageStart), (int)
                    (to - from));
            versions[i + 1] = page.clone();
        }
        return versions;
    }
}
