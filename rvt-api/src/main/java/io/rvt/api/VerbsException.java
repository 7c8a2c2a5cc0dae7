package io.rvt.api;

/**
 * The error a verb raises when rdmavt would return a negative errno: it names the problem and the offending value,
 * carries the {@link Errno}, and guarantees that the objects involved are left as they were.
 *
 * <p>This is the root of rvt's exception hierarchy: {@link WorkRequestException} adds the index of the first bad work
 * request of a list, {@code DriverValidationException} (in the SPI) the driver and the verb that failed.
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errno errno;

    /**
     * @param errno the errno rdmavt would return
     * @param message what went wrong, naming the field and the value
     */
    public VerbsException(Errno errno, String message) {
        super(message + " (" + errno + ")");
        this.errno = errno;
    }

    /**
     * @param errno the errno rdmavt would return
     * @param message what went wrong, naming the field and the value
     * @param cause the underlying cause
     */
    public VerbsException(Errno errno, String message, Throwable cause) {
        super(message + " (" + errno + ")", cause);
        this.errno = errno;
    }

    /** @return the errno rdmavt would return for this error */
    public Errno errno() {
        return errno;
    }
}
