package io.walden.spi;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The handles a {@link StorageSession} gives out for open files: small integers that index a table
 * of the backend's file objects and their paths, reused once closed.
 *
 * <p><b>Threading:</b> not thread-safe; owned by the session's owning thread.
 *
 * @param <F> the backend's file type, for example a {@code FileChannel}.
 */
public final class FileTable<F> {
    private final List<F> files = new ArrayList<>();
    private final List<Path> paths = new ArrayList<>();

    /** Creates an empty table. */
    public FileTable() {}

    /**
     * Adds an open file.
     *
     * @param file the backend's file object.
     * @param path its path, for messages.
     * @return its handle.
     */
    public int add(final F file, final Path path) {
        for (int i = 0; i < files.size(); i++) {
            if (files.get(i) == null) {
                files.set(i, file);
                paths.set(i, path);
                return i;
            }
        }
        files.add(file);
        paths.add(path);
        return files.size() - 1;
    }

    /**
     * The file of a handle.
     *
     * @param handle the handle.
     * @return the file.
     */
    public F file(final int handle) {
        return files.get(handle);
    }

    /**
     * The path of a handle.
     *
     * @param handle the handle.
     * @return the path.
     */
    public Path path(final int handle) {
        return paths.get(handle);
    }

    /**
     * Notes that a file was renamed, so that the open handles' paths (which errors name) stay true.
     *
     * @param source its old path.
     * @param target its new path.
     */
    public void renamed(final Path source, final Path target) {
        for (int i = 0; i < paths.size(); i++) {
            if (source.equals(paths.get(i))) {
                paths.set(i, target);
            }
        }
    }

    /**
     * Frees a handle.
     *
     * @param handle the handle.
     * @return the file it held, for the caller to close.
     */
    public F remove(final int handle) {
        final F file = files.get(handle);
        files.set(handle, null);
        paths.set(handle, null);
        return file;
    }

    /**
     * Passes each open file and its path to an action.
     *
     * @param action receives one file.
     */
    public void forEach(final BiConsumer<F, Path> action) {
        for (int i = 0; i < files.size(); i++) {
            final F file = files.get(i);
            if (file != null) {
                action.accept(file, paths.get(i));
            }
        }
    }

    /**
     * Frees every handle, passing each open file and its path to a closer.
     *
     * @param closer closes one file.
     */
    public void removeAll(final BiConsumer<F, Path> closer) {
        for (int i = 0; i < files.size(); i++) {
            final F file = files.get(i);
            if (file != null) {
                closer.accept(file, paths.get(i));
                files.set(i, null);
                paths.set(i, null);
            }
        }
    }
}
