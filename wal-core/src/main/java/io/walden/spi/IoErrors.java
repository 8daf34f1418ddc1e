package io.walden.spi;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * The operating system's reason for a failed file operation, in words: {@code java.nio.file}'s
 * exceptions often carry only the path as their message ("cannot create X: X"), and their class name
 * is the reason.
 *
 * <p><b>Threading:</b> stateless; any thread.
 */
public final class IoErrors {
    private IoErrors() {}

    /**
     * The reason of a failure, in words.
     *
     * @param failure the failure.
     * @return why it failed: permission denied, a file in the way, no such file, or the system's own
     *     words.
     */
    public static String reason(final IOException failure) {
        final String detail = failure instanceof FileSystemException fileSystemException
                ? fileSystemException.getReason()
                : failure.getMessage();
        final String words;
        if (failure instanceof AccessDeniedException) {
            words = "permission denied";
        } else if (failure instanceof FileAlreadyExistsException) {
            words = "something that is not a directory (a file) is in the way";
        } else if (failure instanceof NotDirectoryException) {
            words = "a part of the path is not a directory";
        } else if (failure instanceof NoSuchFileException) {
            words = "no such file or directory";
        } else if (failure instanceof DirectoryNotEmptyException) {
            words = "the directory is not empty";
        } else {
            return detail != null ? detail : failure.getClass().getSimpleName();
        }
        return detail != null ? words + " (" + detail + ")" : words;
    }

    /**
     * A failure in words with the file it concerns: {@code "<file>: permission denied"} for {@code
     * java.nio.file}'s exceptions, the message alone for a plain {@link IOException} (whose message
     * says it all), and the exception itself for any other (whose class may be its only reason).
     *
     * @param failure the failure.
     * @return the description.
     */
    public static String describe(final IOException failure) {
        if (failure instanceof FileSystemException fileSystemException && fileSystemException.getFile() != null) {
            return fileSystemException.getFile() + ": " + reason(failure);
        }
        if (failure.getClass() == IOException.class && failure.getMessage() != null) {
            return failure.getMessage();
        }
        return failure.toString();
    }
}
