package io.rvt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

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

    /**
     * Asserts that {@code call} fails with a {@link VerbsException} of {@code errno} whose message holds each
     * fragment (the problem and the value named).
     *
     * @param call the verb
     * @param errno the errno expected
     * @param fragments text the message must contain
     */
    public static void assertErrno(ThrowingCallable call, Errno errno, String... fragments) {
        assertThatThrownBy(call).isInstanceOf(VerbsException.class)
                .satisfies(e -> assertThat(((VerbsException) e).errno()).isEqualTo(errno))
                .satisfies(e -> {
                    for (String f : fragments) {
                        assertThat(e.getMessage()).contains(f);
                    }
                });
    }
}
