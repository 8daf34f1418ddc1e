package io.walden.testkit;

/**
 * The errors {@link SimulatedStorage} can inject into an operation, as the system call would report
 * them: the operation fails with an {@link java.io.IOException} carrying the kernel's text for the
 * error, and changes nothing on the disk.
 *
 * <p><b>Threading:</b> immutable.
 */
public enum Errno {
    /** An I/O error: a failing device, or write-back that failed before an fdatasync reported it. */
    EIO("Input/output error"),
    /**
     * No space left on the file system. On a write, Walden waits and writes again (back-pressure;
     * appends refused after the append timeout say {@code STORAGE_SPACE}); on a sync it fails the log.
     */
    ENOSPC("No space left on device"),
    /** The user's disk quota is exhausted. */
    EDQUOT("Disk quota exceeded");

    private final String text;

    Errno(final String text) {
        this.text = text;
    }

    /** @return the kernel's text for the error, as {@code strerror} gives it. */
    public String text() {
        return text;
    }
}
