package io.walden.crash;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters shared by every crash suite of one test JVM, printed as the {@code CRASH-SUMMARY} line by
 * {@link CrashSummaryListener} when the test plan ends, so that any run can be compared with another.
 *
 * <p>Each suite adds what it actually checked (never what it planned to check), and a suite that finds
 * an acknowledged record missing adds it to {@link #LOST} before it fails, so the line tells the truth
 * even for a red run.
 *
 * <p><b>Threading:</b> any thread; the counters are atomic.
 */
public final class CrashTally {
    /** Simulated power-loss crash states that were reopened and checked. */
    public static final AtomicLong SIMULATED = new AtomicLong();

    /** Child JVMs killed with SIGKILL and checked, on the FileChannel backend. */
    public static final AtomicLong KILLS_NIO = new AtomicLong();

    /** Child JVMs killed with SIGKILL and checked, on the io_uring backend. */
    public static final AtomicLong KILLS_URING = new AtomicLong();

    /** Child JVMs killed with SIGKILL and checked, on the ring-owning io_uring backend (JDK 22+). */
    public static final AtomicLong KILLS_URING_FFM = new AtomicLong();

    /**
     * Child JVMs killed with SIGKILL and checked while they appended to a group log ({@code wal-groups})
     * and purged it, on the FileChannel backend.
     */
    public static final AtomicLong KILLS_GROUPS = new AtomicLong();

    /** Injected I/O fault cases (and real full-disk cases) checked. */
    public static final AtomicLong FAULTS = new AtomicLong();

    /** Single-bit flips checked for detection. */
    public static final AtomicLong BITFLIPS = new AtomicLong();

    /**
     * Segments of the simulated power-loss workloads made ready before their zero-fill finished
     * (the appenders caught up with the preparation), so that crash states include such segments.
     */

    /**
     * Segments of the simulated power-loss workloads made from files retention freed (recycled,
     * not zero-filled), so that crash states include segments with stale bytes of an earlier life.
     */
    public static final AtomicLong RECYCLED_SEGMENTS = new AtomicLong();

    /**
     * Sessions of the simulated power-loss workloads that had several durable writes in flight at once
     * (O_DSYNC, pipelined group commit), so that crash states include writes completed out of order.
     */
    public static final AtomicLong PIPELINED_SESSIONS = new AtomicLong();

    /** Single-bit flips of the newest segment's written frames checked, clean and crashed. */
    public static final AtomicLong FLIPS_NEWEST = new AtomicLong();

    /** Zeroed 512-byte sectors of the newest segment's written range checked, clean and crashed. */
    public static final AtomicLong SECTORS_NEWEST = new AtomicLong();

    /** Zeroed 4 KiB pages of the newest segment's written range checked, clean and crashed. */
    public static final AtomicLong PAGES_NEWEST = new AtomicLong();

    /** Tears at arbitrary byte offsets past the proven durable offset of crashed logs checked. */
    public static final AtomicLong TEARS_NEWEST = new AtomicLong();

    /**
     * Acknowledged SYNCED records that damage past the proven durable offset of a crashed log cut: the
     * one case recovery cannot tell from a torn write (no later frame proves them). Not counted as lost,
     * since the durability contract names it; reported so that it is never silent.
     */
    public static final AtomicLong UNPROVEN_SYNCED_CUT = new AtomicLong();

    /**
     * Atomic batches ({@code Wal.append(WalBatch, ...)}) whose all-or-none survival was checked: once per
     * batch per simulated crash state it could be in, once per batch of a killed child.
     */
    public static final AtomicLong BATCHES = new AtomicLong();

    /**
     * Batches checked that the crash had left partly written (some of their frames intact on disk, some
     * not) and that recovery therefore had to give up whole: the case all-or-none is about. A batch
     * recovered in part is a violation, not counted here.
     */
    public static final AtomicLong BATCHES_TORN = new AtomicLong();

    /** Acknowledged records found missing after a crash or fault (must stay zero). */
    public static final AtomicLong LOST = new AtomicLong();

    /** Records the simulated workloads' logs stored compressed (encoded frames the crash states held). */
    public static final AtomicLong COMPRESSED_RECORDS = new AtomicLong();

    /** Contract violations of any kind found (invented, reordered, altered records, ...; must stay zero). */
    public static final AtomicLong VIOLATIONS = new AtomicLong();

    private CrashTally() {}

    /**
     * The summary line.
     *
     * <p>Each test JVM keeps its own totals (the suites may run in several surefire forks), so the line
     * names the JVM first; {@code .ci/crash-summary.sh} adds up the last line of each.
     *
     * @return {@code CRASH-SUMMARY jvm=<pid> simulated=... kills.nio=... kills.uring=... kills.uringFfm=...
     *     kills.groups=... faults=... bitflips=...
     *     flips.newest=... sectors.newest=... pages.newest=... tears.newest=... unproven.synced.cut=...
     *     recycled=... pipelined=... compressed=... batches=... batchesTorn=... lost=... violations=...}
     */
    public static String summaryLine() {
        return "CRASH-SUMMARY jvm=" + ProcessHandle.current().pid()
                + " simulated=" + SIMULATED.get()
                + " kills.nio=" + KILLS_NIO.get()
                + " kills.uring=" + KILLS_URING.get()
                + " kills.uringFfm=" + KILLS_URING_FFM.get()
                + " kills.groups=" + KILLS_GROUPS.get()
                + " faults=" + FAULTS.get()
                + " bitflips=" + BITFLIPS.get()
                + " flips.newest=" + FLIPS_NEWEST.get()
                + " sectors.newest=" + SECTORS_NEWEST.get()
                + " pages.newest=" + PAGES_NEWEST.get()
                + " tears.newest=" + TEARS_NEWEST.get()
                + " unproven.synced.cut=" + UNPROVEN_SYNCED_CUT.get()
                + " recycled=" + RECYCLED_SEGMENTS.get()
                + " pipelined=" + PIPELINED_SESSIONS.get()
                + " compressed=" + COMPRESSED_RECORDS.get()
                + " batches=" + BATCHES.get()
                + " batchesTorn=" + BATCHES_TORN.get()
                + " lost=" + LOST.get()
                + " violations=" + VIOLATIONS.get();
    }
}
