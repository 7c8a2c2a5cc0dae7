package io.rvt.launcher;

/** A message arrived different from what was sent: the command fails with exit code 1. */
public final class DataCorruptionException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message which message, which byte, what arrived and what was sent
     */
    public DataCorruptionException(String message) {
        super(message);
    }
}
