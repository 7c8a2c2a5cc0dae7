package io.rvt.launcher;

/**
 * A command line the launcher cannot run: an unknown command or option, a missing or impossible value. {@link Main}
 * prints its message on one line and exits with {@link Main#EXIT_USAGE}.
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, naming the option and the value
     */
    public UsageException(String message) {
        super(message);
    }
}
