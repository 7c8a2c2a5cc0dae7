package io.rvt.testsupport;

import java.lang.management.ManagementFactory;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Enforces JUnit's {@link Timeout} with the budget stretched by the machine's load: a method annotated
 * {@code @Timeout(60)} fails once it has run for 60 s times the largest {@code max(1, load average / CPUs)} seen while
 * it ran. A hang guard sized on a quiet machine then still means "hung", not "the machine is busy", on a shared one
 * (issue 27, item 4: at load 26 on 2 cores, four posting threads that take 8 s quietly took over 60). JUnit's own
 * enforcement is off ({@code junit.jupiter.execution.timeout.mode=disabled} in this module's
 * {@code junit-platform.properties}); this extension is registered by autodetection from the same jar.
 *
 * <p>As JUnit's: the annotation on the method wins over one on its class or an enclosing class; a class's
 * {@code @Timeout} covers its test, test template and test factory methods, not its lifecycle methods (those only
 * by their own annotation). {@code SAME_THREAD} (the default) runs the method on the calling thread, interrupts it
 * when the budget is spent and fails the test with a {@link TimeoutException} once it returns;
 * {@code SEPARATE_THREAD} runs it on a thread of its own and fails as soon as the budget is spent.
 *
 * <p>{@code -Drvt.test.timeout.scale=F} sets a least factor (e.g. on a machine whose load average does not show
 * what slows it: a throttled container).
 */
public final class LoadScaledTimeout implements InvocationInterceptor {
    /** How often a running guard looks at the load and the clock. */
    static final long CHECK_MILLIS = 100;

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rvt-load-scaled-timeout");
        t.setDaemon(true);
        return t;
    });

    private final DoubleSupplier loadPerCpu;
    private final double leastScale;

    /** The extension as JUnit's autodetection makes it: the system's one-minute load average per CPU. */
    public LoadScaledTimeout() {
        this(LoadScaledTimeout::systemLoadPerCpu, Double.parseDouble(System.getProperty("rvt.test.timeout.scale",
                "1")));
    }

    /**
     * @param loadPerCpu the load average per CPU now (negative when unknown: taken as 0)
     * @param leastScale the least factor a budget is stretched by (at least 1)
     */
    LoadScaledTimeout(DoubleSupplier loadPerCpu, double leastScale) {
        this.loadPerCpu = loadPerCpu;
        this.leastScale = Math.max(1, leastScale);
    }

    private static double systemLoadPerCpu() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? 0 : load / Runtime.getRuntime().availableProcessors();
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, true));
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, true));
    }

    @Override
    public <T> T interceptTestFactoryMethod(Invocation<T> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        return guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, true));
    }

    @Override
    public void interceptBeforeAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, false));
    }

    @Override
    public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, false));
    }

    @Override
    public void interceptAfterEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, false));
    }

    @Override
    public void interceptAfterAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
            ExtensionContext context) throws Throwable {
        guard(invocation, call.getExecutable(), timeoutOf(call.getExecutable(), context, false));
    }

    /** The {@code @Timeout} in force: the method's, else (for testable methods) its class's or an enclosing one's. */
    private static Optional<Timeout> timeoutOf(Method method, ExtensionContext context, boolean testable) {
        Timeout own = method.getAnnotation(Timeout.class);
        if (own != null || !testable) {
            return Optional.ofNullable(own);
        }
        for (Class<?> c = context.getRequiredTestClass(); c != null; c = c.getEnclosingClass()) {
            Timeout t = annotation(c);
            if (t != null) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    private static Timeout annotation(AnnotatedElement e) {
        return e.getAnnotation(Timeout.class);
    }

    private <T> T guard(Invocation<T> invocation, Method method, Optional<Timeout> timeout) throws Throwable {
        if (timeout.isEmpty()) {
            return invocation.proceed();
        }
        Timeout t = timeout.get();
        Budget budget = new Budget(t.unit().toNanos(t.value()), System.nanoTime());
        budget.look(loadPerCpu, leastScale);
        if (t.threadMode() == Timeout.ThreadMode.SEPARATE_THREAD) {
            return separateThread(invocation, method, budget);
        }
        Thread caller = Thread.currentThread();
        ScheduledFuture<?> check = WATCHDOG.scheduleWithFixedDelay(() -> {
            if (!budget.expired && budget.look(loadPerCpu, leastScale)) {
                caller.interrupt();
            }
        }, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        T result;
        try {
            result = invocation.proceed();
        } catch (Throwable e) {
            check.cancel(false);
            if (budget.settle()) {
                Thread.interrupted(); // ours, not the test's
                TimeoutException te = budget.failure(method);
                te.addSuppressed(e);
                throw te;
            }
            throw e;
        }
        check.cancel(false);
        if (budget.settle()) {
            Thread.interrupted();
            throw budget.failure(method);
        }
        return result;
    }

    private <T> T separateThread(Invocation<T> invocation, Method method, Budget budget) throws Throwable {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Object none = new Object();
        outcome.set(none);
        Thread runner = new Thread(() -> {
            try {
                outcome.set(new Result(invocation.proceed(), null));
            } catch (Throwable e) {
                outcome.set(new Result(null, e));
            }
        }, method.getName() + " (@Timeout SEPARATE_THREAD)");
        runner.setDaemon(true);
        runner.start();
        while (true) {
            runner.join(CHECK_MILLIS);
            if (outcome.get() != none) {
                Result r = (Result) outcome.get();
                if (r.failure != null) {
                    throw r.failure;
                }
                @SuppressWarnings("unchecked")
                T value = (T) r.value;
                return value;
            }
            if (budget.look(loadPerCpu, leastScale)) {
                runner.interrupt();
                throw budget.failure(method);
            }
        }
    }

    private record Result(Object value, Throwable failure) {
    }

    /** One guarded call's budget: the annotation's nanoseconds and the largest factor seen so far. */
    static final class Budget {
        final long nanos;
        final long start;
        volatile double scale = 1;
        volatile boolean expired;
        volatile long elapsed;

        Budget(long nanos, long start) {
            this.nanos = nanos;
            this.start = start;
        }

        /** Samples the load; returns true (once) when the stretched budget is spent. */
        synchronized boolean look(DoubleSupplier loadPerCpu, double least) {
            scale = Math.max(scale, Math.max(least, loadPerCpu.getAsDouble()));
            elapsed = System.nanoTime() - start;
            if (!expired && elapsed > nanos * scale) {
                expired = true;
                return true;
            }
            return false;
        }

        /** After the call: whether it overran (a last look at the clock, so a check that did not run yet counts). */
        synchronized boolean settle() {
            if (!expired) {
                elapsed = System.nanoTime() - start;
                expired = elapsed > nanos * scale;
            }
            return expired;
        }

        TimeoutException failure(Method method) {
            return new TimeoutException(String.format(Locale.ROOT,
                    "%s() timed out after %.2f s: its @Timeout of %.2f s stretched %.1fx by the load average per CPU"
                            + " (the largest seen while it ran)",
                    method.getName(), elapsed / 1e9, nanos / 1e9, scale));
        }
    }
}
