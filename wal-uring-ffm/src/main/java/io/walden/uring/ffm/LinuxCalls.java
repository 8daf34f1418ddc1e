package io.walden.uring.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The Linux calls this backend makes, as downcalls into the C library through the Foreign Function
 * and Memory API: the three io_uring system calls (through {@code syscall}), and {@code open},
 * {@code close}, {@code pwrite}, {@code fdatasync}, {@code mmap}, {@code munmap}, {@code eventfd}, {@code read}, {@code write} and
 * {@code strerror}. Each call that can fail captures {@code errno} into a segment the caller owns
 * ({@link #newErrnoSegment}), so that no call allocates.
 *
 * <p>x86_64 only: the system call numbers and the open flags are that architecture's.
 *
 * <p><b>Threading:</b> stateless; each thread passes its own errno segment.
 */
@SuppressWarnings("restricted")
final class LinuxCalls {
    /** io_uring_setup(2) on x86_64. */
    static final long SYS_IO_URING_SETUP = 425;
    /** io_uring_enter(2) on x86_64. */
    static final long SYS_IO_URING_ENTER = 426;
    /** io_uring_register(2) on x86_64. */
    static final long SYS_IO_URING_REGISTER = 427;

    static final int O_RDONLY = 0;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_DSYNC = 010000;
    static final int O_DIRECT = 040000;
    static final int O_CLOEXEC = 02000000;

    static final int PROT_READ_WRITE = 0x1 | 0x2;
    static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;
    static final long MAP_FAILED = -1L;

    static final int EFD_CLOEXEC = 02000000;

    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EFAULT = 14;
    static final int EINVAL = 22;
    static final int EOPNOTSUPP = 95;
    static final int ECANCELED = 125;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle SYSCALL = downcall(
            "syscall",
            FunctionDescriptor.of(
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1),
            CAPTURE_ERRNO);
    private static final MethodHandle OPEN = downcall(
            "open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2),
            CAPTURE_ERRNO);
    private static final MethodHandle CLOSE =
            downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle MMAP = downcall(
            "mmap",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            CAPTURE_ERRNO);
    private static final MethodHandle MUNMAP =
            downcall("munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle EVENTFD =
            downcall("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle READ =
            downcall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle WRITE =
            downcall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle FDATASYNC =
            downcall("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
    private static final MethodHandle PWRITE = downcall(
            "pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), CAPTURE_ERRNO);
    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().find("strerror").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private LinuxCalls() {}

    private static MethodHandle downcall(
            final String name, final FunctionDescriptor descriptor, final Linker.Option... options) {
        final MemorySegment symbol = LINKER.defaultLookup()
                .find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("the C library has no " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /**
     * A segment to capture errno into, one per calling thread.
     *
     * @param arena the arena that owns it.
     * @return the segment.
     */
    static MemorySegment newErrnoSegment(final Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /**
     * The errno the last failed call captured.
     *
     * @param errnoSegment the segment given to that call.
     * @return the errno.
     */
    static int errno(final MemorySegment errnoSegment) {
        return (int) ERRNO.get(errnoSegment, 0L);
    }

    /**
     * The C library's text for an errno.
     *
     * @param errno the error number.
     * @return for example "No space left on device (errno 28)".
     */
    static String describe(final int errno) {
        try {
            final MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.reinterpret(Integer.MAX_VALUE).getString(0) + " (errno " + errno + ")";
        } catch (final Throwable ex) {
            return "errno " + errno;
        }
    }

    static long syscall(
            final MemorySegment errnoSegment,
            final long number,
            final long a,
            final long b,
            final long c,
            final long d,
            final long e,
            final long f) {
        try {
            return (long) SYSCALL.invokeExact(errnoSegment, number, a, b, c, d, e, f);
        } catch (final Throwable ex) {
            throw new IllegalStateException("syscall " + number + " could not be called", ex);
        }
    }

    static int open(final MemorySegment errnoSegment, final MemorySegment path, final int flags, final int mode) {
        try {
            return (int) OPEN.invokeExact(errnoSegment, path, flags, mode);
        } catch (final Throwable ex) {
            throw new IllegalStateException("open could not be called", ex);
        }
    }

    static int close(final MemorySegment errnoSegment, final int fd) {
        try {
            return (int) CLOSE.invokeExact(errnoSegment, fd);
        } catch (final Throwable ex) {
            throw new IllegalStateException("close could not be called", ex);
        }
    }

    static long mmap(final MemorySegment errnoSegment, final long lengthBytes, final int fd, final long offset) {
        try {
            return (long)
                    MMAP.invokeExact(errnoSegment, 0L, lengthBytes, PROT_READ_WRITE, MAP_SHARED_POPULATE, fd, offset);
        } catch (final Throwable ex) {
            throw new IllegalStateException("mmap could not be called", ex);
        }
    }

    static int munmap(final MemorySegment errnoSegment, final long address, final long lengthBytes) {
        try {
            return (int) MUNMAP.invokeExact(errnoSegment, address, lengthBytes);
        } catch (final Throwable ex) {
            throw new IllegalStateException("munmap could not be called", ex);
        }
    }

    static int eventfd(final MemorySegment errnoSegment) {
        try {
            return (int) EVENTFD.invokeExact(errnoSegment, 0, EFD_CLOEXEC);
        } catch (final Throwable ex) {
            throw new IllegalStateException("eventfd could not be called", ex);
        }
    }

    static int fdatasync(final MemorySegment errnoSegment, final int fd) {
        try {
            return (int) FDATASYNC.invokeExact(errnoSegment, fd);
        } catch (final Throwable ex) {
            throw new IllegalStateException("fdatasync could not be called", ex);
        }
    }

    static long pwrite(
            final MemorySegment errnoSegment,
            final int fd,
            final long address,
            final long lengthBytes,
            final long fileOffset) {
        try {
            return (long) PWRITE.invokeExact(errnoSegment, fd, address, lengthBytes, fileOffset);
        } catch (final Throwable ex) {
            throw new IllegalStateException("pwrite could not be called", ex);
        }
    }

    static long read(final MemorySegment errnoSegment, final int fd, final long address, final long lengthBytes) {
        try {
            return (long) READ.invokeExact(errnoSegment, fd, address, lengthBytes);
        } catch (final Throwable ex) {
            throw new IllegalStateException("read could not be called", ex);
        }
    }

    static long write(final MemorySegment errnoSegment, final int fd, final long address, final long lengthBytes) {
        try {
            return (long) WRITE.invokeExact(errnoSegment, fd, address, lengthBytes);
        } catch (final Throwable ex) {
            throw new IllegalStateException("write could not be called", ex);
        }
    }
}
