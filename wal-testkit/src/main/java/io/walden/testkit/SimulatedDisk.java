package io.walden.testkit;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The storage under one log directory as {@link SimulatedSession}s see it: the directory's files (real
 * files, the page-cache view), the identity (inode) behind each name, and the history of every {@link
 * DiskEvent} so far. Files present when the disk is created are durable.
 *
 * <p>The disk can be frozen, at once or at a {@link CrashPoint}: from then on nothing is recorded and
 * every operation fails, so nothing after the freeze point can be acknowledged. This is the power
 * failing; {@link DiskHistory} then tells what survives of any prefix of the history.
 *
 * <p><b>Threading:</b> events are recorded by the thread that owns the session (one at a time); the
 * length of the history is read by any thread (appenders note it when an acknowledgement arrives).
 * Every method is synchronized.
 */
final class SimulatedDisk {
    private static final CrashPoint.Operation[] OPERATIONS = CrashPoint.Operation.values();

    private final Path directory;
    private final List<DiskModel.InitialFile> initialFiles = new ArrayList<>();
    private final Map<String, Integer> inodes = new HashMap<>();
    // The other way round: the name each inode has now.
    private final Map<Integer, String> names = new HashMap<>();
    private final List<DiskEvent> events = new ArrayList<>();
    private final int[] operationCounts = new int[CrashPoint.Operation.values().length];
    // The writes and syncs of segment files (by id), whose completions are data events too.
    private final Set<Long> dataOperations = new HashSet<>();
    private int nextInode;
    private long nextId = 1;
    private CrashPoint crashPoint;
    private int crashPointSeen;
    private boolean frozen;
    // The supply this disk shares with the other directories of the simulated machine.
    private PowerLine power = new PowerLine();

    /**
     * Creates the disk of a directory; every file in it but the log's lock file is taken as durable.
     *
     * @param directory the log directory, which exists.
     * @throws IOException if the directory cannot be read.
     */
    SimulatedDisk(final Path directory) throws IOException {
        this(directory, readFiles(directory));
    }

    /**
     * Creates the disk of a directory whose files are known.
     *
     * @param directory the log directory.
     * @param files the content of each of its files, all durable, by name.
     */
    SimulatedDisk(final Path directory, final SortedMap<String, byte[]> files) {
        this.directory = directory;
        for (final Map.Entry<String, byte[]> file : files.entrySet()) {
            final int inode = nextInode++;
            initialFiles.add(new DiskModel.InitialFile(inode, file.getKey(), file.getValue()));
            inodes.put(file.getKey(), inode);
            names.put(inode, file.getKey());
        }
    }

    private static SortedMap<String, byte[]> readFiles(final Path directory) throws IOException {
        final List<Path> paths;
        try (Stream<Path> entries = Files.list(directory)) {
            paths = entries.filter(Files::isRegularFile)
                    .filter(path -> !SegmentNames.LOCK_FILE_NAME.equals(nameOf(path)))
                    .toList();
        }
        final SortedMap<String, byte[]> files = new TreeMap<>();
        for (final Path path : paths) {
            files.put(nameOf(path), Files.readAllBytes(path));
        }
        return files;
    }

    /** @return the directory. */
    Path directory() {
        return directory;
    }

    /** @return the files the disk was created with and every event since. */
    synchronized DiskHistory history() {
        return new DiskHistory(initialFiles, List.copyOf(events));
    }

    /**
     * Arms a power failure: the disk freezes right after the point's operation, counted from now.
     *
     * @param point the crash point; replaces one armed before.
     */
    synchronized void crashAfter(final CrashPoint point) {
        crashPoint = point;
        crashPointSeen = 0;
        if (point.operation() == CrashPoint.Operation.EVENT && point.count() == 0) {
            frozen = true;
            power.cut();
        }
    }

    /** Connects the disk to a supply shared with other disks. */
    synchronized void power(final PowerLine line) {
        this.power = line;
    }

    /** Freezes the disk now, and every disk on its power line. */
    synchronized void freeze() {
        frozen = true;
        power.cut();
    }

    /** Freezes this disk for good: its power line failed and is coming back for another disk. */
    synchronized void latch() {
        frozen = frozen || power.isOff();
    }

    /** @return whether the power has failed. */
    synchronized boolean frozen() {
        return frozen || power.isOff();
    }

    /** @return how many events the log holds. */
    synchronized int eventCount() {
        return events.size();
    }

    /**
     * How many events of a kind were recorded.
     *
     * @param operation the kind.
     * @return the count.
     */
    synchronized int operationCount(final CrashPoint.Operation operation) {
        return operationCounts[operation.ordinal()];
    }

    /**
     * Records an event unless the disk is frozen.
     *
     * @param event the event.
     * @return false if frozen: the operation must not happen.
     */
    synchronized boolean record(final DiskEvent event) {
        if (frozen()) {
            return false;
        }
        events.add(event);
        final boolean data = isData(event);
        for (final CrashPoint.Operation operation : OPERATIONS) {
            if (operation.counts(event, data)) {
                operationCounts[operation.ordinal()]++;
            }
        }
        if (crashPoint != null
                && crashPoint.operation().counts(event, data)
                && ++crashPointSeen >= crashPoint.count()) {
            frozen = true;
            power.cut();
        }
        return true;
    }

    /** Whether an event belongs to a segment file's data path: its writes, syncs and their completions. */
    private boolean isData(final DiskEvent event) {
        if (event instanceof DiskEvent.Write write) {
            return isSegment(write.inode()) && dataOperations.add(write.writeId());
        } else if (event instanceof DiskEvent.Sync sync) {
            return isSegment(sync.inode()) && dataOperations.add(sync.syncId());
        } else if (event instanceof DiskEvent.WriteDone done) {
            return dataOperations.remove(done.writeId());
        } else if (event instanceof DiskEvent.SyncDone done) {
            return dataOperations.remove(done.syncId());
        }
        return false;
    }

    private boolean isSegment(final int inode) {
        final String name = currentName(inode);
        return name != null && name.endsWith(SegmentNames.SEGMENT_SUFFIX);
    }

    /** @return a new id for a write, sync or directory operation. */
    synchronized long nextId() {
        return nextId++;
    }

    /**
     * The identity of the file a name refers to now.
     *
     * @param name a file name in the directory.
     * @return its inode, or -1 if no file has that name.
     */
    synchronized int inode(final String name) {
        return inodes.getOrDefault(name, -1);
    }

    /**
     * The name a file has now: a file opened under one name may have been renamed since.
     *
     * @param inode the file's identity.
     * @return its name, or null if it has none (deleted).
     */
    synchronized String currentName(final int inode) {
        return names.get(inode);
    }

    /**
     * Gives a new file an identity.
     *
     * @param name its name.
     * @return its inode.
     */
    synchronized int addInode(final String name) {
        final int inode = nextInode++;
        final Integer replaced = inodes.put(name, inode);
        if (replaced != null) {
            names.remove(replaced);
        }
        names.put(inode, name);
        return inode;
    }

    /**
     * Moves a name.
     *
     * @param source the old name.
     * @param target the new name.
     */
    synchronized void renameInode(final String source, final String target) {
        final Integer inode = inodes.remove(source);
        if (inode != null) {
            final Integer replaced = inodes.put(target, inode);
            if (replaced != null) {
                names.remove(replaced);
            }
            names.put(inode, target);
        }
    }

    /**
     * Removes a name.
     *
     * @param name the name.
     * @return whether it existed.
     */
    synchronized boolean removeInode(final String name) {
        final Integer inode = inodes.remove(name);
        if (inode == null) {
            return false;
        }
        names.remove(inode);
        return true;
    }

    private static String nameOf(final Path path) {
        return path.getFileName().toString();
    }
}
