package io.walden;

import java.nio.file.Path;

/** Damaged or foreign data in a log; the message names the file, the byte offset and what was wrong. */
public final class WalCorruptionException extends WalException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long fileOffset;

    /**
     * @param file the damaged file.
     * @param fileOffset byte offset of the damage in the file, or -1 for the whole file.
     * @param reason what was wrong.
     */
    public WalCorruptionException(final Path file, final long fileOffset, final String reason) {
        this(
                file,
                fileOffset,
                reason,
                "Restore the file from a replica or backup, or open with RecoveryPolicy.TRUNCATE"
                        + " to discard everything from the damage on.");
    }

    /**
     * Creates the exception for damage that the usual advice does not fit.
     *
     * @param file the damaged file.
     * @param fileOffset byte offset of the damage in the file, or -1 for the whole file.
     * @param reason what was wrong.
     * @param whatToDo what the user can do about it, a sentence.
     */
    public WalCorruptionException(final Path file, final long fileOffset, final String reason, final String whatToDo) {
        super(
                ErrorCode.CORRUPTION,
                "corruption in " + file + (fileOffset >= 0 ? " at offset " + fileOffset : "") + ": " + reason + ". "
                        + whatToDo);
        this.file = file;
        this.fileOffset = fileOffset;
    }

    /** @return the damaged file. */
    public Path file() {
        return file;
    }

    /** @return the byte offset of the damage in {@link #file()}, or -1 when the whole file is at fault. */
    public long fileOffset() {
        return fileOffset;
    }
}
