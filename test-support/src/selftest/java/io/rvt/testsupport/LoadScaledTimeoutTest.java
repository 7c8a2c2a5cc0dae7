package io.rvt.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs small sample classes through JUnit's launcher, each with a {@link LoadScaledTimeout} whose load is given
 * (autodetection off for those runs, so the jar's own registration stays out), and reads what JUnit reports.
 */
class LoadScaledTimeoutTest {
    /** The load per CPU the samples' extension sees. */
    static volatile double load;

    /** A 150 ms budget around 600 ms of work (a sleep: the work is waiting, the guard is what is tested). */
    static class Overrun {
        @RegisterExtension
        static final LoadScaledTimeout TIMEOUT = new LoadScaledTimeout(() -> load, 1);

        @Test
        @Timeout(value = 150, unit = TimeUnit.MILLISECONDS)
        void slow() throws InterruptedException {
            Thread.sleep(600);
        }
    }

    /** The class's budget covers its methods. */
    @Timeout(value = 150, unit = TimeUnit.MILLISECONDS)
    static class ClassLevel {
        @RegisterExtension
        static final LoadScaledTimeout TIMEOUT = new LoadScaledTimeout(() -> load, 1);

        @Test
        void slow() throws InterruptedException {
            Thread.sleep(600);
        }
    }

    /** A method blocked for good: SEPARATE_THREAD abandons it once the budget is spent. */
    static class Blocked {
        @RegisterExtension
        static final LoadScaledTimeout TIMEOUT = new LoadScaledTimeout(() -> load, 1);

        @Test
        @Timeout(value = 150, unit = TimeUnit.MILLISECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
        void forever() throws InterruptedException {
            new CountDownLatch(1).await();
        }
    }

    private static List<TestExecutionResult> run(Class<?> sample) {
        List<TestExecutionResult> results = new ArrayList<>();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(sample))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
                .configurationParameter("junit.jupiter.execution.timeout.mode", "disabled").build(),
                new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                        if (id.isTest()) {
                            results.add(result);
                        }
                    }
                });
        assertThat(results).as("tests run in %s", sample.getSimpleName()).hasSize(1);
        return results;
    }

    @Test
    void shouldFailAMethodThatOverrunsItsTimeoutOnAQuietMachine() {
        load = 0;
        TestExecutionResult r = run(Overrun.class).get(0);
        assertThat(r.getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        assertThat(r.getThrowable()).get().isInstanceOf(TimeoutException.class).asString()
                .contains("slow() timed out after", "@Timeout of 0.15 s", "stretched 1.0x");
    }

    @Test
    void shouldLetTheSameMethodFinishWhenTheLoadStretchesItsBudget() {
        load = 100; // 15 s
        TestExecutionResult r = run(Overrun.class).get(0);
        assertThat(r.getStatus()).as("%s", r.getThrowable()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
    }

    @Test
    void shouldApplyAClassesTimeoutToItsTestMethods() {
        load = 0;
        assertThat(run(ClassLevel.class).get(0).getThrowable()).get().isInstanceOf(TimeoutException.class);
        load = 100;
        assertThat(run(ClassLevel.class).get(0).getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
    }

    @Test
    void shouldAbandonABlockedMethodOnItsOwnThreadOnceTheBudgetIsSpent() {
        load = 0;
        TestExecutionResult r = run(Blocked.class).get(0);
        assertThat(r.getThrowable()).get().isInstanceOf(TimeoutException.class).asString()
                .contains("forever() timed out");
    }

    @Test
    void shouldKeepTheLargestFactorSeenWhileTheMethodRan() {
        LoadScaledTimeout.Budget b = new LoadScaledTimeout.Budget(TimeUnit.SECONDS.toNanos(1), System.nanoTime());
        b.look(() -> 3, 1);
        b.look(() -> 0.5, 1);
        assertThat(b.scale).isEqualTo(3);
        b.look(() -> 0, 5); // the least factor (-Drvt.test.timeout.scale)
        assertThat(b.scale).isEqualTo(5);
    }
}
