package io.walden.crash.fault;

/**
 * The I/O faults {@link FaultInjectingBackend} injects, each at the level of one system call of the
 * backend below it: which operation it hits, and what that call does.
 *
 * <p><b>Threading:</b> immutable.
 */
enum FaultKind {
    /** A write to the active segment fails with EIO and writes nothing. */
    DATA_WRITE_EIO(Target.DATA_WRITE, "Input/output error (EIO)"),
    /**
     * A write to the active segment (data or its header) runs out of space part-way: a sector-aligned
     * part of it is written, then it fails with ENOSPC. Back-pressure: the write is done again.
     */
    DATA_WRITE_ENOSPC_PARTIAL(Target.DATA_WRITE, "No space left on device (ENOSPC)"),
    /**
     * A write to the active segment writes only a part and reports that part as its result, as {@code
     * write(2)} may. The SPI requires a backend to finish such a write or fail it; the core must not
     * take a short result for a whole write, and fails the log.
     */
    DATA_WRITE_SHORT_REPORTED(Target.DATA_WRITE, "short write"),
    /**
     * Every write to the active segment is done in two parts, as a backend that finishes short writes
     * itself does: not a fault; nothing may fail and nothing may be lost.
     */
    DATA_WRITE_SHORT_COMPLETED(Target.DATA_WRITE, null),
    /** fdatasync of the active segment fails with EIO (and is not retried). */
    DATA_SYNC_EIO(Target.DATA_SYNC, "Input/output error (EIO)"),
    /** A zero-fill write of the next segment writes only a part and reports that part as its result. */
    PREPARE_WRITE_SHORT_REPORTED(Target.PREPARE_WRITE, "short write"),
    /** The allocation of the next segment's space fails with ENOSPC: back-pressure, tried again. */
    PREPARE_ALLOCATE_ENOSPC(Target.PREPARE_ALLOCATE, "No space left on device (ENOSPC)"),
    /** A zero-fill write of the next segment runs out of space part-way (ENOSPC): back-pressure, tried again. */
    PREPARE_WRITE_ENOSPC_PARTIAL(Target.PREPARE_WRITE, "No space left on device (ENOSPC)"),
    /** An fsync of the log directory (segment preparation or truncation) fails with EIO. */
    DIRECTORY_SYNC_EIO(Target.DIRECTORY_SYNC, "Input/output error (EIO)");

    /** The operation a fault hits. */
    enum Target {
        /** submitWrite to a {@code .wal} file. */
        DATA_WRITE,
        /** submitSync of a {@code .wal} file. */
        DATA_SYNC,
        /** submitAllocate of a {@code .wal.tmp} file. */
        PREPARE_ALLOCATE,
        /** submitWrite to a {@code .wal.tmp} file. */
        PREPARE_WRITE,
        /** submitSyncDirectory. */
        DIRECTORY_SYNC
    }

    private final Target target;
    private final String cause;

    FaultKind(final Target target, final String cause) {
        this.target = target;
        this.cause = cause;
    }

    /** @return the operation it hits. */
    Target target() {
        return target;
    }

    /** @return the text of the cause the failure must carry, or null for {@link #DATA_WRITE_SHORT_COMPLETED}. */
    String cause() {
        return cause;
    }

    /**
     * @return whether the log must fail: every kind but {@link #DATA_WRITE_SHORT_COMPLETED} and the
     *     {@link #backPressure back-pressure} ones.
     */
    boolean failsLog() {
        return cause != null && !backPressure();
    }

    /**
     * @return whether the fault is back-pressure, not a failure: a write to the active segment or the
     *     next segment's preparation found no space, which the log tries again later while appends go
     *     on.
     */
    boolean backPressure() {
        return this == DATA_WRITE_ENOSPC_PARTIAL
                || this == PREPARE_ALLOCATE_ENOSPC
                || this == PREPARE_WRITE_ENOSPC_PARTIAL;
    }

    /** @return whether part of the write is really written before the fault. */
    boolean writesPart() {
        return this == DATA_WRITE_ENOSPC_PARTIAL || this == PREPARE_WRITE_ENOSPC_PARTIAL || reportsShort();
    }

    /** @return whether the write completes without an error and with fewer bytes than it was given. */
    boolean reportsShort() {
        return this == DATA_WRITE_SHORT_REPORTED || this == PREPARE_WRITE_SHORT_REPORTED;
    }
}
