package io.walden.crash.power;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The storage under one log directory as {@link SimulatedBackend} sessions see it: the directory's
 * files (real files, the page-cache view), the identity (inode) behind each name, and the log of every
 * {@link DiskEvent} so far. Files present when the disk is created are durable.
 *
 * <p>The disk can be frozen, at once or when its log reaches a length: from then on nothing is recorded
 * and every operation fails, so nothing after the freeze point can be acknowledged. This is the power
 * failing; {@link DiskModel} then tells what survives of any prefix of the log.
 *
 * <p><b>Threading:</b> events are recorded by the thread that owns the session (one at a time); the
 * length of the log is read by any thread (appenders note it when an acknowledgement arrives). Every
 * method is synchronized.
 */
final class SimulatedDisk {
    private final Path directory;
    private final List<DiskModel.InitialFile> initialFiles = new ArrayList<>();
    private final Map<String, Integer> inodes = new HashMap<>();
    private final List<DiskEvent> events = new ArrayList<>();
    private int nextInode;
    private long nextId = 1;
    private int freezeAtCount = Integer.MAX_VALUE;
    private boolean frozen;

    /**
     * Creates the disk of a directory; every file in it is taken as durable.
     *
     * @param directory the log directory, which exists.
     * @throws IOException if the directory cannot be read.
     */
    SimulatedDisk(final Path directory) throws IOException {
        this.directory = directory;
        final List<Path> paths;
        try (Stream<Path> entries = Files.list(directory)) {
            paths = entries.sorted().toList();
        }
        for (final Path path : paths) {
            if (Files.isRegularFile(path)) {
                final int inode = nextInode++;
                final String name = path.getFileName().toString();
                initialFiles.add(new DiskModel.InitialFile(inode, name, Files.readAllBytes(path)));
                inodes.put(name, inode);
            }
        }
    }

    /** @return the directory. */
    Path directory() {
        return directory;
    }

    /** @return a model of the disk as it was created, to replay events into. */
    synchronized DiskModel newModel() {
        return new DiskModel(initialFiles);
    }

    /**
     * Freezes the disk once its log holds a number of events.
     *
     * @param eventCount the length of the log at which the power fails.
     */
    synchronized void freezeAt(final int eventCount) {
        freezeAtCount = eventCount;
        frozen = events.size() >= eventCount;
    }

    /** Freezes the disk now. */
    synchronized void freeze() {
        freezeAt(events.size());
    }

    /** @return whether the power has failed. */
    synchronized boolean frozen() {
        return frozen;
    }

    /** @return how many events the log holds. */
    synchronized int eventCount() {
        return events.size();
    }

    /**
     * The events recorded so far.
     *
     * @return a copy of the log.
     */
    synchronized List<DiskEvent> events() {
        return List.copyOf(events);
    }

    /**
     * Records an event unless the disk is frozen.
     *
     * @param event the event.
     * @return false if frozen: the operation must not happen.
     */
    synchronized boolean record(final DiskEvent event) {
        if (events.size() >= freezeAtCount) {
            frozen = true;
        }
        if (frozen) {
            return false;
        }
        events.add(event);
        return true;
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
     * Gives a new file an identity.
     *
     * @param name its name.
     * @return its inode.
     */
    synchronized int addInode(final String name) {
        final int inode = nextInode++;
        inodes.put(name, inode);
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
            inodes.put(target, inode);
        }
    }

    /**
     * Removes a name.
     *
     * @param name the name.
     * @return whether it existed.
     */
    synchronized boolean removeInode(final String name) {
        return inodes.remove(name) != null;
    }
}
