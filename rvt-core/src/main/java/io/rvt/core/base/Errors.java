package io.rvt.core.base;

import io.rvt.api.Errno;
import io.rvt.api.VerbsException;

/** Builders of the verbs errors rvt-core raises; each message names the problem and the value. */
public final class Errors {
    private Errors() {
    }

    /**
     * @param message what is wrong, naming the field and value
     * @return an EINVAL error
     */
    public static VerbsException inval(String message) {
        return new VerbsException(Errno.EINVAL, message);
    }

    /**
     * @param message what ran out
     * @return an ENOMEM error
     */
    public static VerbsException nomem(String message) {
        return new VerbsException(Errno.ENOMEM, message);
    }

    /**
     * @param message what is not supported
     * @return an EOPNOTSUPP error
     */
    public static VerbsException notsupp(String message) {
        return new VerbsException(Errno.EOPNOTSUPP, message);
    }

    /**
     * @param message what is still in use
     * @return an EBUSY error
     */
    public static VerbsException busy(String message) {
        return new VerbsException(Errno.EBUSY, message);
    }

    /**
     * @param errno a positive or negative errno, also one {@link Errno} has no constant for (a driver's)
     * @param message the message
     * @return the error; never fails on the errno
     */
    public static VerbsException of(int errno, String message) {
        return new VerbsException(errno, message);
    }
}
