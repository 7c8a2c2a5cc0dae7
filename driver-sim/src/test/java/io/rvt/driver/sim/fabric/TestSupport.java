package io.rvt.driver.sim.fabric;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Test helpers: waiting on conditions with deadlines (no sleeps), and per-thread allocation counts. */
final class TestSupport {
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private TestSupport() {
    }

    static void await(BooleanSupplier condition, Supplier<String> message) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + TIMEOUT + " waiting for " + message.get());
            }
            Thread.yield();
        }
    }

    /** @return bytes allocated so far by the thread with that id */
    static long allocatedBytes(long threadId) {
        return THREADS.getThreadAllocatedBytes(threadId);
    }

    /** @return bytes allocated so far by the calling thread */
    static long allocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** @return a fabric name no other test uses */
    static String uniqueName(String prefix) {
        return prefix + "-" + System.nanoTime();
    }
}
