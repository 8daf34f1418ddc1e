package io.walden.uring.ffm;

/**
 * The kernel's io_uring layouts (include/uapi/linux/io_uring.h) this backend reads and writes: the
 * setup parameters, the ring offsets the kernel fills in, a submission queue entry and a completion
 * queue entry. Offsets in bytes; every field is little-endian, as the machine is.
 *
 * <p>Setup parameters ({@code struct io_uring_params}, 120 bytes), filled in by io_uring_setup:
 *
 * <pre>
 *   0        4        8        12       16       20       24       28           40            80           120
 *   +--------+--------+--------+--------+--------+--------+--------+------------+-------------+------------+
 *   |sq_entr.|cq_entr.| flags  |sq_cpu  |sq_idle |features| wq_fd  | resv[3]    | sq_off (40) | cq_off (40)|
 *   +--------+--------+--------+--------+--------+--------+--------+------------+-------------+------------+
 *   sq_off: head 0, tail 4, ring_mask 8, ring_entries 12, flags 16, dropped 20, array 24, resv 28, user_addr 32
 *   cq_off: head 0, tail 4, ring_mask 8, ring_entries 12, overflow 16, cqes 20, flags 24, resv 28, user_addr 32
 * </pre>
 *
 * <p>Submission queue entry ({@code struct io_uring_sqe}, 64 bytes), as this backend fills it:
 *
 * <pre>
 *   0      1      2        4         8                16               24        28          32
 *   +------+------+--------+---------+----------------+----------------+---------+-----------+
 *   |opcode|flags |ioprio  |   fd    | off (file)     | addr (memory)  |  len    | op flags  |
 *   +------+------+--------+---------+----------------+----------------+---------+-----------+
 *   32               40                                                           64
 *   +----------------+------------------------------------------------------------+
 *   | user_data      | buf_index, personality, file_index, addr3, pad: all zero   |
 *   +----------------+------------------------------------------------------------+
 * </pre>
 *
 * <p>Completion queue entry ({@code struct io_uring_cqe}, 16 bytes):
 *
 * <pre>
 *   0                8         12        16
 *   +----------------+---------+---------+
 *   | user_data      |  res    | flags   |   res: bytes or 0 on success, -errno on failure
 *   +----------------+---------+---------+
 * </pre>
 *
 * <p><b>Threading:</b> constants only.
 */
final class IoUringDescriptor {
    static final int PARAMS_LENGTH = 120;
    static final int PARAMS_SQ_ENTRIES_OFFSET = 0;
    static final int PARAMS_CQ_ENTRIES_OFFSET = 4;
    static final int PARAMS_FLAGS_OFFSET = 8;
    static final int PARAMS_FEATURES_OFFSET = 20;
    static final int PARAMS_SQ_OFF_OFFSET = 40;
    static final int PARAMS_CQ_OFF_OFFSET = 80;

    static final int SQ_OFF_HEAD = 0;
    static final int SQ_OFF_TAIL = 4;
    static final int SQ_OFF_RING_MASK = 8;
    static final int SQ_OFF_ARRAY = 24;

    static final int CQ_OFF_HEAD = 0;
    static final int CQ_OFF_TAIL = 4;
    static final int CQ_OFF_RING_MASK = 8;
    static final int CQ_OFF_CQES = 20;

    static final int SQE_LENGTH = 64;
    static final int SQE_OPCODE_OFFSET = 0;
    static final int SQE_FLAGS_OFFSET = 1;
    static final int SQE_FD_OFFSET = 4;
    static final int SQE_OFF_OFFSET = 8;
    static final int SQE_ADDR_OFFSET = 16;
    static final int SQE_LEN_OFFSET = 24;
    static final int SQE_OP_FLAGS_OFFSET = 28;
    static final int SQE_USER_DATA_OFFSET = 32;

    static final int CQE_LENGTH = 16;
    static final int CQE_USER_DATA_OFFSET = 0;
    static final int CQE_RES_OFFSET = 8;

    /** mmap offset of the submission ring (and of the completion ring with a single mapping). */
    static final long IORING_OFF_SQ_RING = 0L;
    /** mmap offset of the completion ring. */
    static final long IORING_OFF_CQ_RING = 0x8000000L;
    /** mmap offset of the submission queue entries. */
    static final long IORING_OFF_SQES = 0x10000000L;

    /** Feature: one mapping holds both rings. */
    static final int IORING_FEAT_SINGLE_MMAP = 1;
    /** Setup flag: the completion ring size is given in cq_entries. */
    static final int IORING_SETUP_CQSIZE = 1 << 3;

    /** io_uring_register opcode: signal an eventfd on every completion. */
    static final int IORING_REGISTER_EVENTFD = 4;

    static final byte IORING_OP_FSYNC = 3;
    static final byte IORING_OP_FALLOCATE = 17;
    static final byte IORING_OP_WRITE = 23;
    /** sqe flags: always hand the request to a kernel worker (io-wq); only tests ask for it. */
    static final byte IOSQE_ASYNC = 1 << 4;
    /** fsync_flags: fdatasync rather than fsync. */
    static final int IORING_FSYNC_DATASYNC = 1;

    private IoUringDescriptor() {}
}
