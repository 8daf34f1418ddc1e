package io.walden.uring.ffm;

import static io.walden.uring.ffm.IoUringDescriptor.CQE_LENGTH;
import static io.walden.uring.ffm.IoUringDescriptor.CQE_RES_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.CQE_USER_DATA_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.CQ_OFF_CQES;
import static io.walden.uring.ffm.IoUringDescriptor.CQ_OFF_HEAD;
import static io.walden.uring.ffm.IoUringDescriptor.CQ_OFF_RING_MASK;
import static io.walden.uring.ffm.IoUringDescriptor.CQ_OFF_TAIL;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_FEAT_SINGLE_MMAP;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_FSYNC_DATASYNC;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_OFF_CQ_RING;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_OFF_SQES;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_OFF_SQ_RING;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_OP_FALLOCATE;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_OP_FSYNC;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_OP_WRITE;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_REGISTER_EVENTFD;
import static io.walden.uring.ffm.IoUringDescriptor.IORING_SETUP_CQSIZE;
import static io.walden.uring.ffm.IoUringDescriptor.IOSQE_ASYNC;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_CQ_ENTRIES_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_CQ_OFF_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_FEATURES_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_FLAGS_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_LENGTH;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_SQ_ENTRIES_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.PARAMS_SQ_OFF_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_ADDR_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_FD_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_FLAGS_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_LENGTH;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_LEN_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_OFF_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_OPCODE_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_OP_FLAGS_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQE_USER_DATA_OFFSET;
import static io.walden.uring.ffm.IoUringDescriptor.SQ_OFF_ARRAY;
import static io.walden.uring.ffm.IoUringDescriptor.SQ_OFF_HEAD;
import static io.walden.uring.ffm.IoUringDescriptor.SQ_OFF_RING_MASK;
import static io.walden.uring.ffm.IoUringDescriptor.SQ_OFF_TAIL;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * One io_uring instance, set up and driven through the Foreign Function and Memory API, with no
 * thread of its own: the thread that holds it fills submission queue entries in the shared memory
 * ring, hands them to the kernel with io_uring_enter, and reads completions from the completion ring.
 * An optional eventfd registered with the ring is signalled by the kernel on every completion, so
 * that another thread can wait for completions without touching the rings ({@link #awaitCompletion}).
 *
 * <pre>
 *   holder:  prepare*() -> SQE at sqTail, array[i] = i -> tail (release) -> io_uring_enter(n)
 *   kernel:  runs the operations, posts CQEs at the completion tail, signals the eventfd
 *   holder:  reap(): tail (acquire) -> CQEs from head -> head (release)
 *   waiter:  awaitCompletion(): read(eventfd) blocks until a completion was posted
 * </pre>
 *
 * <p>The submission queue is as deep as the completion queue is wide over two: the caller keeps at
 * most {@link #entries()} operations in flight, so neither ring can overflow.
 *
 * <p><b>Threading:</b> every method but {@link #awaitCompletion} and {@link #wakeWaiter} is called
 * by one thread at a time (the holder), with a happens-before edge between holders; {@link
 * #awaitCompletion} by one waiting thread; {@link #wakeWaiter} by any thread.
 */
@SuppressWarnings("restricted")
final class IoUring implements AutoCloseable {
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final Arena arena = Arena.ofShared();
    // The holder's errno segment; the waiter has its own.
    private final MemorySegment errno = LinuxCalls.newErrnoSegment(arena);
    private final MemorySegment waiterErrno = LinuxCalls.newErrnoSegment(arena);
    private final MemorySegment eventCount = arena.allocate(JAVA_LONG);
    private final MemorySegment wakeCount = arena.allocate(JAVA_LONG);
    private final int ringFd;
    private final int eventFd;
    private final int entries;
    private final MemorySegment sqRing;
    private final MemorySegment cqRing;
    private final MemorySegment sqes;
    private final long sqRingLengthBytes;
    private final long cqRingLengthBytes;
    private final long sqesLengthBytes;
    private final boolean singleMapping;
    private final long sqHeadOffset;
    private final long sqTailOffset;
    private final int sqMask;
    private final long sqArrayOffset;
    private final long cqHeadOffset;
    private final long cqTailOffset;
    private final int cqMask;
    private final long cqesOffset;

    // Holder: the next submission slot, entries prepared and not yet entered, the next completion.
    private int sqTail;
    private int preparedCount;
    private int cqHead;
    private boolean closed;
    // Holder: whether every entry is flagged IOSQE_ASYNC (tests that need a request held in io-wq).
    private boolean forceAsync;

    private IoUring(final int entries) throws IOException {
        final MemorySegment params = arena.allocate(PARAMS_LENGTH);
        params.set(JAVA_INT, PARAMS_FLAGS_OFFSET, IORING_SETUP_CQSIZE);
        params.set(JAVA_INT, PARAMS_CQ_ENTRIES_OFFSET, entries * 2);
        this.ringFd = setUp(entries, params);
        this.entries = params.get(JAVA_INT, PARAMS_SQ_ENTRIES_OFFSET);
        final int cqEntries = params.get(JAVA_INT, PARAMS_CQ_ENTRIES_OFFSET);
        final int features = params.get(JAVA_INT, PARAMS_FEATURES_OFFSET);
        final long sqOff = PARAMS_SQ_OFF_OFFSET;
        final long cqOff = PARAMS_CQ_OFF_OFFSET;
        sqHeadOffset = params.get(JAVA_INT, sqOff + SQ_OFF_HEAD);
        sqTailOffset = params.get(JAVA_INT, sqOff + SQ_OFF_TAIL);
        sqArrayOffset = params.get(JAVA_INT, sqOff + SQ_OFF_ARRAY);
        cqHeadOffset = params.get(JAVA_INT, cqOff + CQ_OFF_HEAD);
        cqTailOffset = params.get(JAVA_INT, cqOff + CQ_OFF_TAIL);
        cqesOffset = params.get(JAVA_INT, cqOff + CQ_OFF_CQES);
        final long sqMaskOffset = params.get(JAVA_INT, sqOff + SQ_OFF_RING_MASK);
        final long cqMaskOffset = params.get(JAVA_INT, cqOff + CQ_OFF_RING_MASK);

        singleMapping = (features & IORING_FEAT_SINGLE_MMAP) != 0;
        long sqLength = sqArrayOffset + (long) this.entries * Integer.BYTES;
        long cqLength = cqesOffset + (long) cqEntries * CQE_LENGTH;
        if (singleMapping) {
            sqLength = Math.max(sqLength, cqLength);
            cqLength = sqLength;
        }
        sqRingLengthBytes = sqLength;
        cqRingLengthBytes = cqLength;
        sqesLengthBytes = (long) this.entries * SQE_LENGTH;
        MemorySegment mappedSq = null;
        MemorySegment mappedCq = null;
        try {
            mappedSq = map(sqRingLengthBytes, IORING_OFF_SQ_RING, "submission ring");
            mappedCq = singleMapping ? mappedSq : map(cqRingLengthBytes, IORING_OFF_CQ_RING, "completion ring");
            sqes = map(sqesLengthBytes, IORING_OFF_SQES, "submission entries");
        } catch (final IOException ex) {
            // Unmaps what was mapped before the failure, then gives the ring back.
            if (mappedSq != null) {
                LinuxCalls.munmap(errno, mappedSq.address(), sqRingLengthBytes);
            }
            if (mappedCq != null && !singleMapping) {
                LinuxCalls.munmap(errno, mappedCq.address(), cqRingLengthBytes);
            }
            LinuxCalls.close(errno, ringFd);
            arena.close();
            throw ex;
        }
        sqRing = mappedSq;
        cqRing = mappedCq;
        sqMask = sqRing.get(JAVA_INT, sqMaskOffset);
        cqMask = cqRing.get(JAVA_INT, cqMaskOffset);
        sqTail = (int) INT.getAcquire(sqRing, sqTailOffset);
        cqHead = (int) INT.getAcquire(cqRing, cqHeadOffset);
        eventFd = registerEventFd();
    }

    /**
     * Sets up the ring the parameters describe ({@code io_uring_setup}); returns its file descriptor. On
     * failure, frees the arena.
     */
    private int setUp(final int entries, final MemorySegment params) throws IOException {
        final long fd = LinuxCalls.syscall(errno, LinuxCalls.SYS_IO_URING_SETUP, entries, params.address(), 0, 0, 0, 0);
        if (fd < 0) {
            final int error = LinuxCalls.errno(errno);
            arena.close();
            throw new IOException("io_uring_setup failed: " + LinuxCalls.describe(error));
        }
        return (int) fd;
    }

    /**
     * Makes the eventfd that the ring signals each completion on and registers it with the ring;
     * returns it. On failure, unmaps the rings and closes the ring.
     */
    private int registerEventFd() throws IOException {
        final int efd = LinuxCalls.eventfd(errno);
        if (efd < 0) {
            final int error = LinuxCalls.errno(errno);
            unmapAndClose();
            throw new IOException("eventfd failed: " + LinuxCalls.describe(error));
        }
        final MemorySegment fdArgument = arena.allocate(JAVA_INT);
        fdArgument.set(JAVA_INT, 0, efd);
        final long registered = LinuxCalls.syscall(
                errno,
                LinuxCalls.SYS_IO_URING_REGISTER,
                ringFd,
                IORING_REGISTER_EVENTFD,
                fdArgument.address(),
                1,
                0,
                0);
        if (registered < 0) {
            final int error = LinuxCalls.errno(errno);
            LinuxCalls.close(errno, efd);
            unmapAndClose();
            throw new IOException("io_uring_register(IORING_REGISTER_EVENTFD) failed: " + LinuxCalls.describe(error));
        }
        return efd;
    }

    /**
     * Sets up a ring.
     *
     * @param entries submission queue entries, a power of two; the completion queue has twice as many.
     * @return the ring.
     * @throws IOException if the kernel refuses (io_uring disabled, a seccomp filter, no memory).
     */
    static IoUring open(final int entries) throws IOException {
        return new IoUring(entries);
    }

    private MemorySegment map(final long lengthBytes, final long offset, final String what) throws IOException {
        final long address = LinuxCalls.mmap(errno, lengthBytes, ringFd, offset);
        if (address == LinuxCalls.MAP_FAILED) {
            throw new IOException(
                    "mmap of the io_uring " + what + " failed: " + LinuxCalls.describe(LinuxCalls.errno(errno)));
        }
        return MemorySegment.ofAddress(address).reinterpret(lengthBytes);
    }

    /**
     * Most operations in flight at once.
     *
     * @return the submission queue's entries.
     */
    int entries() {
        return entries;
    }

    /** Holder: a positional write of {@code lengthBytes} from native memory at {@code address}. */
    void prepareWrite(
            final int fd, final long fileOffset, final long address, final int lengthBytes, final long userData) {
        final long sqe = nextEntry();
        sqes.set(JAVA_BYTE, sqe + SQE_OPCODE_OFFSET, IORING_OP_WRITE);
        sqes.set(JAVA_INT, sqe + SQE_FD_OFFSET, fd);
        sqes.set(JAVA_LONG, sqe + SQE_OFF_OFFSET, fileOffset);
        sqes.set(JAVA_LONG, sqe + SQE_ADDR_OFFSET, address);
        sqes.set(JAVA_INT, sqe + SQE_LEN_OFFSET, lengthBytes);
        sqes.set(JAVA_LONG, sqe + SQE_USER_DATA_OFFSET, userData);
    }

    /** Holder: fdatasync of a file. */
    void prepareDataSync(final int fd, final long userData) {
        final long sqe = nextEntry();
        sqes.set(JAVA_BYTE, sqe + SQE_OPCODE_OFFSET, IORING_OP_FSYNC);
        sqes.set(JAVA_INT, sqe + SQE_FD_OFFSET, fd);
        sqes.set(JAVA_INT, sqe + SQE_OP_FLAGS_OFFSET, IORING_FSYNC_DATASYNC);
        sqes.set(JAVA_LONG, sqe + SQE_USER_DATA_OFFSET, userData);
    }

    /** Holder: fallocate mode 0 of a range (the length rides in addr, the mode in len). */
    void prepareAllocate(final int fd, final long fileOffset, final long lengthBytes, final long userData) {
        final long sqe = nextEntry();
        sqes.set(JAVA_BYTE, sqe + SQE_OPCODE_OFFSET, IORING_OP_FALLOCATE);
        sqes.set(JAVA_INT, sqe + SQE_FD_OFFSET, fd);
        sqes.set(JAVA_LONG, sqe + SQE_OFF_OFFSET, fileOffset);
        sqes.set(JAVA_LONG, sqe + SQE_ADDR_OFFSET, lengthBytes);
        sqes.set(JAVA_LONG, sqe + SQE_USER_DATA_OFFSET, userData);
    }

    /**
     * Holder: flags every entry prepared from now on IOSQE_ASYNC, so that the kernel hands it to the
     * submitting thread's io-wq workers instead of trying it inline. For tests that need a request to
     * wait there (see {@link SubmitterExit}).
     */
    void forceAsync() {
        forceAsync = true;
    }

    /** Takes the next submission slot, zeroed, and publishes its index in the array. */
    private long nextEntry() {
        final int head = (int) INT.getAcquire(sqRing, sqHeadOffset);
        if (sqTail - head >= entries) {
            throw new IllegalStateException("io_uring submission queue full: " + entries + " entries");
        }
        final int index = sqTail & sqMask;
        final long sqe = (long) index * SQE_LENGTH;
        for (int i = 0; i < SQE_LENGTH; i += Long.BYTES) {
            sqes.set(JAVA_LONG, sqe + i, 0L);
        }
        if (forceAsync) {
            sqes.set(JAVA_BYTE, sqe + SQE_FLAGS_OFFSET, IOSQE_ASYNC);
        }
        sqRing.set(JAVA_INT, sqArrayOffset + (long) index * Integer.BYTES, index);
        sqTail++;
        preparedCount++;
        return sqe;
    }

    /**
     * Holder: hands every prepared entry to the kernel.
     *
     * @throws IOException if io_uring_enter fails; the entries it did not take are withdrawn (no later
     *     call submits them), and the caller fails the operations it prepared.
     */
    void submit() throws IOException {
        INT.setRelease(sqRing, sqTailOffset, sqTail);
        while (preparedCount > 0) {
            final long result =
                    LinuxCalls.syscall(errno, LinuxCalls.SYS_IO_URING_ENTER, ringFd, preparedCount, 0, 0, 0L, 0L);
            if (result > 0) {
                preparedCount -= (int) result;
                continue;
            }
            final int error = result < 0 ? LinuxCalls.errno(errno) : 0;
            if (error == LinuxCalls.EINTR || error == LinuxCalls.EAGAIN) {
                continue;
            }
            final int untaken = preparedCount;
            sqTail -= untaken;
            INT.setRelease(sqRing, sqTailOffset, sqTail);
            preparedCount = 0;
            throw new IOException("io_uring_enter took none of " + untaken + " entries: "
                    + (result < 0 ? LinuxCalls.describe(error) : "it returned 0"));
        }
    }

    /** Receives one completion. */
    @FunctionalInterface
    interface CompletionConsumer {
        /**
         * @param userData what the operation was prepared with.
         * @param result its result: bytes or zero, or minus the errno.
         */
        void onCompletion(long userData, int result);
    }

    /**
     * Holder: delivers completions from the completion ring.
     *
     * @param consumer receives each.
     * @param limit the most to deliver.
     * @return how many were delivered.
     */
    int reap(final CompletionConsumer consumer, final int limit) {
        final int tail = (int) INT.getAcquire(cqRing, cqTailOffset);
        int count = 0;
        while (cqHead != tail && count < limit) {
            final long cqe = cqesOffset + (long) (cqHead & cqMask) * CQE_LENGTH;
            final long userData = cqRing.get(JAVA_LONG, cqe + CQE_USER_DATA_OFFSET);
            final int result = cqRing.get(JAVA_INT, cqe + CQE_RES_OFFSET);
            cqHead++;
            INT.setRelease(cqRing, cqHeadOffset, cqHead);
            consumer.onCompletion(userData, result);
            count++;
        }
        return count;
    }

    /**
     * Waiter: blocks until the kernel posted a completion since the last return (or {@link
     * #wakeWaiter} was called).
     *
     * @throws IOException if reading the eventfd fails.
     */
    void awaitCompletion() throws IOException {
        while (true) {
            final long read = LinuxCalls.read(waiterErrno, eventFd, eventCount.address(), Long.BYTES);
            if (read == Long.BYTES) {
                return;
            }
            final int error = LinuxCalls.errno(waiterErrno);
            if (read < 0 && error != LinuxCalls.EINTR) {
                throw new IOException("read of the io_uring eventfd failed: " + LinuxCalls.describe(error));
            }
        }
    }

    /** Any thread: makes the waiter return from {@link #awaitCompletion}, as a completion would. */
    void wakeWaiter() {
        synchronized (wakeCount) {
            wakeCount.set(JAVA_LONG, 0, 1L);
            LinuxCalls.write(LinuxCalls.newErrnoSegment(Arena.ofAuto()), eventFd, wakeCount.address(), Long.BYTES);
        }
    }

    /** Holder, once nothing is in flight and the waiter has stopped: releases the ring. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LinuxCalls.close(errno, eventFd);
        unmapAndClose();
    }

    private void unmapAndClose() {
        LinuxCalls.munmap(errno, sqRing.address(), sqRingLengthBytes);
        if (!singleMapping && cqRing != null) {
            LinuxCalls.munmap(errno, cqRing.address(), cqRingLengthBytes);
        }
        if (sqes != null) {
            LinuxCalls.munmap(errno, sqes.address(), sqesLengthBytes);
        }
        LinuxCalls.close(errno, ringFd);
        arena.close();
    }
}
