package io.walden.internal.state;

import io.walden.Durability;
import io.walden.WalException;

/**
 * The exception for a wait that failed after its record entered the log, as every waiter reports it
 * (a blocking append, {@code await}, a future): it names the record's LSN and says what is known of
 * its fate. Allocates, on the failure path only.
 */
public final class WaitFailure {
    private WaitFailure() {}

    /**
     * What an asynchronous acknowledgement learns when the log fails or closes before its record reached
     * its level: as a blocking append, that the record is in the log and whether it reached the disk is
     * unknown.
     */
    public static WalException forStoppedLog(final Throwable cause, final long lsn, final Durability durability) {
        final WalException failed =
                cause instanceof WalException walException ? walException : LogState.failureException(cause, lsn + 1);
        return outcomeUnknown(failed, lsn, durability);
    }

    /** The failure of a wait for the record at {@code lsn}, carrying {@code lsn}. */
    public static WalException outcomeUnknown(final WalException cause, final long lsn, final Durability durability) {
        final String message = cause.errorCode() == WalException.ErrorCode.INTERRUPTED
                ? "interrupted while waiting for the record at LSN " + lsn + " to be " + durability
                        + ": the record is in the log and will be written"
                        + (durability == Durability.SYNCED ? " and synced" : "")
                        + " unless the log fails; call await(" + lsn + ", " + durability + ") to learn when"
                : cause.getMessage() + " The record at LSN " + lsn + " was appended before that; whether it"
                        + " reached the disk is unknown: reopen the log and read it to find out.";
        return new WalException(cause.errorCode(), message, cause, lsn);
    }
}
