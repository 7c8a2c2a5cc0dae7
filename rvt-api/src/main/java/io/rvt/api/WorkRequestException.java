package io.rvt.api;

/**
 * A {@code postSend}, {@code postRecv} or {@code postSrqRecv} of a list of work requests failed at one of them:
 * {@link #badIndex()} is the position of that work request in the list (ibverbs' {@code bad_wr}). Every work request
 * before it was posted and stays posted; it and every one after it were not.
 *
 * <p>When the whole call is refused before any work request is looked at (for {@code postSend} in a state that does
 * not allow posting, rdmavt does not set {@code bad_wr}) the index is {@link #NO_INDEX}.
 */
public class WorkRequestException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** The value of {@link #badIndex()} when no work request was singled out. */
    public static final int NO_INDEX = -1;

    /** Index in the list of the first work request that was not posted, or {@link #NO_INDEX}. */
    private final int badIndex;

    /**
     * @param errno the errno rdmavt would return
     * @param badIndex index of the first work request not posted, or {@link #NO_INDEX}
     * @param message what went wrong, naming the field and the value
     */
    public WorkRequestException(Errno errno, int badIndex, String message) {
        super(errno, badIndex == NO_INDEX ? message : "work request " + badIndex + ": " + message);
        this.badIndex = badIndex;
    }

    /**
     * For an errno that may have no {@link Errno} constant (a driver's {@code setup_wqe} result): see
     * {@link VerbsException#VerbsException(int, String)}.
     *
     * @param errnoValue a positive or negative errno value
     * @param badIndex index of the first work request not posted, or {@link #NO_INDEX}
     * @param message what went wrong, naming the field and the value
     */
    public WorkRequestException(int errnoValue, int badIndex, String message) {
        super(errnoValue, badIndex == NO_INDEX ? message : "work request " + badIndex + ": " + message);
        this.badIndex = badIndex;
    }

    /** @return index in the list of the first work request that was not posted, or {@link #NO_INDEX} */
    public int badIndex() {
        return badIndex;
    }
}
