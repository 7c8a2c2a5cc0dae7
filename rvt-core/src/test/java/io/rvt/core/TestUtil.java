package io.rvt.core;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting helpers for tests that start threads (Aeron's {@code Tests.await}): no fixed sleeps, only deadlines. */
public final class TestUtil {
    /** The default deadline for a condition that should hold almost at once. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private TestUtil() {
    }

    /**
     * Spins (yielding) until {@code condition} holds.
     *
     * @param condition the condition
     * @param timeout the deadline
     * @param message describes what was awaited, for the failure
     * @throws AssertionError if the deadline passes first
     */
    public static void await(BooleanSupplier condition, Duration timeout, Supplier<String> message) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + message.get());
            }
            Thread.yield();
        }
    }

    /**
     * @param condition the condition
     * @param message what was awaited
     */
    public static void await(BooleanSupplier condition, String message) {
        await(condition, TIMEOUT, () -> message);
    }

    /**
     * Waits until {@code t} is blocked (WAITING, TIMED_WAITING or BLOCKED).
     *
     * @param t the thread
     */
    public static void awaitBlocked(Thread t) {
        await(() -> {
            Thread.State s = t.getState();
            return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.BLOCKED;
        }, TIMEOUT, () -> t.getName() + " to block (state " + t.getState() + ")");
    }
}
