package io.rvt.it;

import java.lang.ref.WeakReference;
import java.time.Duration;

/** Waits for a condition by polling it until a deadline: the tests' only way to wait (never a bare sleep). */
final class Poll {
    /** Long enough for a loaded 2-core machine; a passing run takes a fraction of it. */
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private Poll() {
    }

    /** A condition that may throw (a call into the framework); an exception fails the wait at once. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    /** What to show when a condition stays false. */
    @FunctionalInterface
    interface State {
        Object get() throws Exception;
    }

    /**
     * @param what      the condition, for the failure message
     * @param condition polled until true
     * @throws AssertionError if it is still false at the deadline
     * @throws Exception     what the condition threw
     */
    static void until(String what, Condition condition) throws Exception {
        until(what, condition, () -> "");
    }

    /**
     * @param what      the condition, for the failure message
     * @param condition polled until true
     * @param state     what to show when it stays false
     * @throws AssertionError if it is still false at the deadline
     * @throws Exception     what the condition or the state threw
     */
    static void until(String what, Condition condition, State state) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not true within " + DEADLINE.toSeconds() + " s: " + what + " "
                        + state.get());
            }
            Thread.onSpinWait();
            Thread.yield(); // 2 cores: let the framework's and the fabric's threads run
        }
    }

    /**
     * Waits until the garbage collector has cleared a weak reference, asking for a collection at each poll.
     *
     * @param what what the reference points to, for the failure message
     * @param ref  the reference
     * @throws AssertionError if it is still set at the deadline (something keeps the object reachable)
     */
    static void untilCollected(String what, WeakReference<?> ref) throws Exception {
        until(what + " was collected", () -> {
            System.gc();
            return ref.get() == null;
        });
    }
}
