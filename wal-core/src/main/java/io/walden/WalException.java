package io.walden;

/**
 * Every error Walden raises is a {@code WalException} or a subclass, carrying an {@link ErrorCode}
 * and a message that names the file or setting involved and what to do.
 *
 * <p><b>Was the record appended?</b> An exception from an append, or from a wait for a record, says
 * so through {@link #lsn()}: {@link #NO_LSN} if the record never entered the log, else its position,
 * with only its outcome unknown. {@link Wal#append(byte[], Durability)} lists the cases.
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
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     */
    public WalException(final ErrorCode errorCode, final String message) {
        super(message);
        this.errorCode = errorCode;
        this.lsn = NO_LSN;
    }

    /**
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     * @param cause the underlying failure.
     */
    public WalException(final ErrorCode errorCode, final String message, final Throwable cause) {
        this(errorCode, message, cause, NO_LSN);
    }

    /**
     * Creates an exception about a record whose outcome is unknown.
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

    /** @return the kind of failure. */
    public ErrorCode errorCode() {
        return errorCode;
    }

    /** @return the position of the record the failed call appended, or {@link #NO_LSN} if none. */
    public long lsn() {
        return lsn;
    }
}
