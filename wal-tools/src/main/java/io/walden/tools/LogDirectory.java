package io.walden.tools;

import io.walden.format.SegmentNames;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A log directory as listed once: its segment files in position order and everything else in it.
 * Checks first that the path is a readable directory that holds a log, and says otherwise, naming
 * the path and what to give instead.
 *
 * <p><b>Threading:</b> immutable.
 */
final class LogDirectory {
    private static final String GIVE =
            "Give the directory the log was opened with (it holds the segment files," + " named <20 digits>.wal)";

    /**
     * A segment file as listed.
     *
     * @param base its base position, from its name.
     * @param path its path.
     * @param size its size when listed.
     */
    record Segment(long base, Path path, long size) {
        /** @return its file name. */
        String name() {
            return path.getFileName().toString();
        }
    }

    /**
     * Another entry of the directory.
     *
     * @param path its path.
     * @param directory whether it is a directory.
     * @param size its size in bytes (for a directory, the sum of its regular files').
     * @param files for a directory, its regular files (name and size), else empty.
     */
    record Entry(Path path, boolean directory, long size, List<Segment> files) {
        /** @return its file name. */
        String name() {
            return path.getFileName().toString();
        }
    }

    private final Path path;
    private final List<Segment> segments;
    private final List<Entry> others;

    private LogDirectory(final Path path, final List<Segment> segments, final List<Entry> others) {
        this.path = path;
        this.segments = segments;
        this.others = others;
    }

    /**
     * Checks a path and lists the log directory.
     *
     * @param path the path given on the command line.
     * @return the listing.
     * @throws ToolException ({@link Walden#EXIT_UNREADABLE}) if it is no readable directory holding a
     *     segment file.
     */
    static LogDirectory open(final Path path) {
        check(path);
        final List<Segment> segments = new ArrayList<>();
        final List<Entry> others = new ArrayList<>();
        final List<Path> entries;
        try (Stream<Path> listing = Files.list(path)) {
            entries = listing.sorted().collect(Collectors.toList());
        } catch (final AccessDeniedException ex) {
            throw new ToolException(
                    Walden.EXIT_UNREADABLE,
                    "cannot list " + path + ": permission denied. The tool needs read access to the directory and"
                            + " its segment files",
                    ex);
        } catch (final IOException ex) {
            throw new ToolException(
                    Walden.EXIT_UNREADABLE, "cannot list " + path + ": " + Failures.describe(ex) + ". " + GIVE, ex);
        }
        for (final Path entry : entries) {
            try {
                final long base =
                        SegmentNames.parseSegmentName(entry.getFileName().toString());
                if (base >= 0 && Files.isRegularFile(entry)) {
                    segments.add(new Segment(base, entry, Files.size(entry)));
                } else if (Files.isDirectory(entry)) {
                    final List<Segment> files = filesOf(entry);
                    others.add(new Entry(
                            entry, true, files.stream().mapToLong(Segment::size).sum(), files));
                } else {
                    others.add(new Entry(entry, false, Files.size(entry), List.of()));
                }
            } catch (final NoSuchFileException ex) {
                // Removed since the listing (a writer's retention, a finished preparation): skip it.
            } catch (final IOException ex) {
                others.add(new Entry(entry, false, -1, List.of()));
            }
        }
        if (segments.isEmpty()) {
            final String held = others.isEmpty()
                    ? "it is empty"
                    : "it holds "
                            + others.stream()
                                    .limit(5)
                                    .map(e -> e.name() + (e.directory() ? "/" : ""))
                                    .collect(Collectors.joining(", "))
                            + (others.size() > 5 ? " and " + (others.size() - 5) + " more" : "");
            throw new ToolException(
                    Walden.EXIT_UNREADABLE,
                    "no Walden log in " + path + ": no segment file (<20 digits>.wal) there; " + held + ". " + GIVE);
        }
        return new LogDirectory(path, Collections.unmodifiableList(segments), Collections.unmodifiableList(others));
    }

    /**
     * Checks that a path is a readable directory, without listing it.
     *
     * @param path the path given on the command line.
     * @throws ToolException ({@link Walden#EXIT_UNREADABLE}) if it is not.
     */
    static void check(final Path path) {
        if (!Files.exists(path)) {
            throw new ToolException(Walden.EXIT_UNREADABLE, "cannot read " + path + ": no such directory. " + GIVE);
        }
        if (!Files.isDirectory(path)) {
            final String name =
                    path.getFileName() == null ? "" : path.getFileName().toString();
            final Path parent = path.toAbsolutePath().getParent();
            final String hint = SegmentNames.parseSegmentName(name) >= 0 && parent != null
                    ? "; give its directory, " + parent + ", instead"
                    : ". " + GIVE;
            throw new ToolException(Walden.EXIT_UNREADABLE, path + " is a file, not a log directory" + hint);
        }
        if (!Files.isReadable(path) || !Files.isExecutable(path)) {
            throw new ToolException(
                    Walden.EXIT_UNREADABLE,
                    "cannot read " + path + ": permission denied. The tool needs read access to the directory and"
                            + " its segment files");
        }
    }

    private static List<Segment> filesOf(final Path directory) throws IOException {
        final List<Segment> files = new ArrayList<>();
        try (Stream<Path> listing = Files.list(directory)) {
            for (final Path file : (Iterable<Path>) listing.sorted()::iterator) {
                if (Files.isRegularFile(file)) {
                    try {
                        files.add(new Segment(-1, file, Files.size(file)));
                    } catch (final NoSuchFileException ex) {
                        // Gone since the listing.
                    }
                }
            }
        }
        return files;
    }

    /** @return the directory. */
    Path path() {
        return path;
    }

    /** @return its segment files, in position order. */
    List<Segment> segments() {
        return segments;
    }

    /** @return its other entries, by name. */
    List<Entry> others() {
        return others;
    }
}
