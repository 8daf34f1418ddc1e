package io.walden;

/**
 * Every error Walden raises is a {@code WalException} or a subclass, carrying an {@link ErrorCode}
 * and a message that names the file or setting involved and what to do.
 *
 * <p><b>Was the record appended?</b> An exception from an append, or from a wait for a record, says
 * so through {@link #lsn()}:
 *
 * <ul>
 *   <li>{@link #NO_LSN}: nothing was appended (the record was refused before it entered the log: too
 *       large, no buffer space in time, the log closed or failed, interrupted while waiting for space).
 *   <li>an LSN: the record is in the log at that position, and only its outcome is unknown. With
 *       {@link ErrorCode#INTERRUPTED} it will still be written (and synced) unless the log fails; call
 *       {@link Wal#await(long, Durability)} to learn when. With {@link ErrorCode#IO} or {@link
 *       ErrorCode#STORAGE_SPACE} the log failed while the record was on its way: it may or may not be on
 *       disk; reopen the log and read it to find out.
 * </ul>
 */
public class WalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@link #lsn()} when the failed call appended nothing. */
    public static final long NO_LSN = -1;

    /** The kind of failure. */
    public enum ErrorCode {
        /** A configuration value is invalid. */
        CONFIG,
        /** A read, write, sync or file operation failed. */
        IO,
        /** The file system is full. */
        STORAGE_SPACE,
        /** Data on disk is damaged or is not Walden's. */
        CORRUPTION,
        /**
         * The log on disk is in a format version this release does not read (written by an older or a
         * newer release). Nothing was changed: open it with the release that wrote it.
         */
        FORMAT,
        /** The log is closed, or failed earlier and refuses further use. */
        CLOSED,
        /** Another process or another open log holds the directory. */
        LOCKED,
        /** An append waited for buffer space longer than the append timeout. */
        BACK_PRESSURE_TIMEOUT,
        /** A position lies outside what the log holds. */
        POSITION,
        /**
         * The calling thread was interrupted while it waited. If {@link #lsn()} names a record, that
         * record is in the log and will be written unless the log fails: the outcome, not the append,
         * is what the interrupt cut short.
         */
        INTERRUPTED
    }

    private final ErrorCode errorCode;
    private final long lsn;

    /**
     * Creates an exception.
     *
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     */
    public WalException(final ErrorCode errorCode, final String message) {
        super(message);
        this.errorCode = errorCode;
        this.lsn = NO_LSN;
    }

    /**
     * Creates an exception with a cause.
     *
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     * @param cause the underlying failure.
     */
    public WalException(final ErrorCode errorCode, final String message, final Throwable cause) {
        this(errorCode, message, cause, NO_LSN);
    }

    /**
     * Creates an exception about a record that was appended and whose outcome is unknown.
     *
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     * @param cause the underlying failure, or null.
     * @param lsn the record's position, or {@link #NO_LSN} if nothing was appended.
     */
    public WalException(final ErrorCode errorCode, final String message, final Throwable cause, final long lsn) {
        super(message, cause);
        this.errorCode = errorCode;
        this.lsn = lsn;
    }

    /**
     * The kind of failure.
     *
     * @return the error code.
     */
    public ErrorCode errorCode() {
        return errorCode;
    }

    /**
     * The position of the record the failed call appended, whose outcome is unknown; {@link #NO_LSN}
     * if nothing was appended.
     *
     * @return the LSN, or {@link #NO_LSN}.
     */
    public long lsn() {
        return lsn;
    }
}
