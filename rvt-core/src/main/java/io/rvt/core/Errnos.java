package io.rvt.core;

/** Negative errno values as rdmavt returns them from internal helpers. */
public final class Errnos {
    private Errnos() {
    }

    /** {@code -EPERM}. */
    public static final int EPERM = -1;
    /** {@code -ENOMEM}. */
    public static final int ENOMEM = -12;
    /** {@code -EACCES}. */
    public static final int EACCES = -13;
    /** {@code -EBUSY}. */
    public static final int EBUSY = -16;
    /** {@code -EINVAL}. */
    public static final int EINVAL = -22;
    /** {@code -EOPNOTSUPP}. */
    public static final int EOPNOTSUPP = -95;
}
