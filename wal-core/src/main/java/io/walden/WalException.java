package io.walden;

/**
 * Every error Walden raises is a {@code WalException} or a subclass, carrying an {@link ErrorCode}
 * and a message that names the file or setting involved and what to do.
 */
public class WalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

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
        /** The log is closed, or failed earlier and refuses further use. */
        CLOSED,
        /** Another process or another open log holds the directory. */
        LOCKED,
        /** An append waited for buffer space longer than the append timeout. */
        BACK_PRESSURE_TIMEOUT,
        /** A position lies outside what the log holds. */
        POSITION
    }

    private final ErrorCode errorCode;

    /**
     * Creates an exception.
     *
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     */
    public WalException(final ErrorCode errorCode, final String message) {
        super(message);
        this.errorCode = errorCode;
    }

    /**
     * Creates an exception with a cause.
     *
     * @param errorCode the kind of failure.
     * @param message what happened, naming the file or setting, and what to do.
     * @param cause the underlying failure.
     */
    public WalException(final ErrorCode errorCode, final String message, final Throwable cause) {
        super(message, cause);
        this.errorCode = errorCode;
    }

    /**
     * The kind of failure.
     *
     * @return the error code.
     */
    public ErrorCode errorCode() {
        return errorCode;
    }
}
