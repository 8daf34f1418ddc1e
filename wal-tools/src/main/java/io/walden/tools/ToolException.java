package io.walden.tools;

/**
 * A failure the tool explains in one line: what is wrong, naming the path, and what to do. Carries
 * the exit code.
 */
final class ToolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * Creates the exception.
     *
     * @param exitCode the process exit code, one of {@link Walden}'s.
     * @param message one line: what is wrong, the path, what to do.
     */
    ToolException(final int exitCode, final String message) {
        super(message);
        this.exitCode = exitCode;
    }

    /**
     * Creates the exception with its cause, shown with {@code --verbose}.
     *
     * @param exitCode the process exit code.
     * @param message one line: what is wrong, the path, what to do.
     * @param cause the underlying failure.
     */
    ToolException(final int exitCode, final String message, final Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** @return the process exit code. */
    int exitCode() {
        return exitCode;
    }
}
