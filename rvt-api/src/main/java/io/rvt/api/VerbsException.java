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

    /** The errno rdmavt would return. */
    private final Errno errno;
    /** The errno's number, positive; kept for an errno that has no {@link Errno} constant. */
    private final int errnoValue;

    /**
     * @param errno the errno rdmavt would return
     * @param message what went wrong, naming the field and the value
     */
    public VerbsException(Errno errno, String message) {
        super(message + " (" + errno + ")");
        this.errno = errno;
        this.errnoValue = errno.value();
    }

    /**
     * For an errno that may have no {@link Errno} constant (a driver's return value): {@link #errno()} is then
     * {@link Errno#OTHER}, {@link #errnoValue()} the number, and the message names it ({@code (E2BIG, errno 7)}).
     *
     * @param errnoValue a positive or negative errno value
     * @param message what went wrong, naming the field and the value
     */
    public VerbsException(int errnoValue, String message) {
        super(message + " (" + describe(errnoValue) + ")");
        this.errno = Errno.find(errnoValue);
        this.errnoValue = errnoValue == Integer.MIN_VALUE ? 0 : Math.abs(errnoValue);
    }

    private static String describe(int errnoValue) {
        Errno e = Errno.find(errnoValue);
        return e != Errno.OTHER ? e.name() : Errno.linuxName(errnoValue) + ", errno " + Math.abs((long) errnoValue);
    }

    /**
     * @param errno the errno rdmavt would return
     * @param message what went wrong, naming the field and the value
     * @param cause the underlying cause
     */
    public VerbsException(Errno errno, String message, Throwable cause) {
        super(message + " (" + errno + ")", cause);
        this.errno = errno;
        this.errnoValue = errno.value();
    }

    /** @return the errno rdmavt would return for this error ({@link Errno#OTHER} for one rvt has no constant for) */
    public Errno errno() {
        return errno;
    }

    /** @return the positive errno number, also for {@link Errno#OTHER} */
    public int errnoValue() {
        return errnoValue;
    }
}
