package io.walden.uring.ffm;

/**
 * Whether a failed ring completion is io_uring giving up on an operation because the thread that
 * submitted it ended, in which case the session submits it again; a pure rule.
 *
 * <p>io_uring ties each request to the thread that submitted it: work it handed to that thread's
 * kernel workers (io-wq) and had not started when the thread ended is cancelled ({@code ECANCELED}),
 * and a request it must issue again through that thread once it has ended is failed ({@code
 * EFAULT}). Neither is the operation's own failure. With a ring-owning session any appender that held
 * the log's I/O duty may have submitted an operation (a write of other appenders' frames, a header
 * write) and then ended before the kernel ran it. Every operation the session submits through the
 * ring is idempotent: a write of the same bytes at the same offset from memory nothing changes while
 * it is in flight, an fdatasync, an fallocate of the same range. So submitting it again from a living
 * thread loses and duplicates nothing.
 *
 * <pre>
 *   result          submitter       decision
 *   -ECANCELED      ended           submit again
 *   -EFAULT         ended           submit again
 *   -ECANCELED      alive           the operation failed
 *   -EFAULT         alive           the operation failed
 *   anything else   either          as the result says
 * </pre>
 *
 * <p><b>Threading:</b> stateless.
 */
final class SubmitterExit {
    private SubmitterExit() {}

    /**
     * Whether to submit an operation again.
     *
     * @param result the completion's result (a negative errno on failure).
     * @param submitterAlive whether the thread that submitted it is alive.
     * @return true if the kernel gave up on it because its submitter ended.
     */
    static boolean resubmit(final int result, final boolean submitterAlive) {
        return !submitterAlive && (result == -LinuxCalls.ECANCELED || result == -LinuxCalls.EFAULT);
    }
}
