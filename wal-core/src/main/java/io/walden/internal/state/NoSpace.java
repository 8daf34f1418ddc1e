package io.walden.internal.state;

import io.walden.WalException;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Recognises a full file system (ENOSPC, or EDQUOT: a quota reached) in a failure, so that it is reported as {@link
 * io.walden.WalException.ErrorCode#STORAGE_SPACE} with advice, rather than as a generic I/O error.
 *
 * <p><b>Threading:</b> stateless.
 */
public final class NoSpace {
    public static final String ADVICE = "the file system is full: free space, then close and reopen the log"
            + " (recovery keeps every acknowledged record)";

    private NoSpace() {}

    /** Whether a failure is ENOSPC or EDQUOT (a quota) anywhere in its cause chain (backends wrap the errno). */
    public static boolean isNoSpace(final Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            final String text = cause instanceof FileSystemException fse ? fse.getReason() : cause.getMessage();
            if (text != null
                    && (text.contains("No space left")
                            || text.contains("Disk quota exceeded")
                            || text.contains("Error code: 28;")
                            || text.contains("Error code: 122;"))) {
                return true;
            }
        }
        return false;
    }

    /** How much space the file system of a directory has free, for a message ("N bytes free"); a failure to ask is added to the cause. */
    public static String freeSpace(final Path directory, final Throwable failure) {
        try {
            return Files.getFileStore(directory).getUsableSpace() + " bytes free";
        } catch (final IOException ex) {
            failure.addSuppressed(ex);
            return "free space unknown";
        }
    }

    public static WalException.ErrorCode errorCode(final Throwable failure) {
        return isNoSpace(failure) ? WalException.ErrorCode.STORAGE_SPACE : WalException.ErrorCode.IO;
    }
}
