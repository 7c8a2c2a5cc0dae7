package io.rvt.driver.sim.fabric;

/**
 * Why the fabric dropped a frame. Each drop is counted on the fabric's {@link Counters} and on one port's: the port
 * that would have received the frame, or the sender for a frame that never reached a receiver's link
 * ({@link #UNKNOWN_DESTINATION}, and {@link #LINK_DOWN} or {@link #CLOSED} on the sender's side).
 */
public enum DropCause {
    /** No port has the destination LID, or a multicast LID has no member but the sender. */
    UNKNOWN_DESTINATION,
    /** Lost by the receiving link's {@link FaultConfig#loss()}. */
    LOSS,
    /** The sender's or receiver's link was down, or went down while the frame was on it. */
    LINK_DOWN,
    /** An active {@link Partition} separates sender and receiver. */
    PARTITION,
    /** A copy (multicast fan-out or duplication fault) found the fabric's copy pool empty. */
    POOL_EXHAUSTED,
    /** The receiving port has no {@link FrameHandler}. */
    NO_HANDLER,
    /** The sending or receiving port, or the fabric, was closed. */
    CLOSED,
    /** Lost by the fabric's {@link DropRule} (a test's precise fault). */
    RULE
}
