package io.rvt.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rvt.api.Device;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Base of every conformance test: opens a fresh fixture with two devices per test, closes its {@link Verbs} and the
 * fixture afterwards, and prints the fixture's seed when a test fails. Set {@code -Drvt.test.seed=N} to replay a
 * seed, {@code random} to explore.
 * <p>
 * A driver runs a suite with one class per suite, whose static {@code variants()} method lists the
 * {@link Variant}s to run it on: every case runs once per variant (a JUnit parameterized class, shown as
 * {@code [n] name}).
 */
@ParameterizedClass(name = "[{index}] {0}")
@MethodSource("variants")
public abstract class ConformanceTest {
    /** The variant this instance runs on, one of the concrete class's {@code variants()}. */
    @Parameter
    protected Variant variant;
    /** The fixture of the running test. */
    protected DriverFixture fixture;
    /** Helpers bound to {@link #fixture}. */
    protected Verbs verbs;
    /** Two devices that reach each other. */
    protected Device[] dev;
    /** The seed of the running test. */
    protected long seed;

    /** Prints the variant and the seed of a failed test. */
    @RegisterExtension
    final TestWatcher seedPrinter = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            System.err.println("FAILED " + context.getDisplayName() + " on " + variant + " with seed " + seed
                    + " (replay with -Drvt.test.seed=" + seed + ")");
        }
    };

    /**
     * @param seed the seed for the fixture's randomness
     * @return a new fixture of the driver under test: by default {@link #variant}'s
     */
    protected DriverFixture createFixture(long seed) {
        return variant.open(seed);
    }

    /**
     * The seed for this test: {@code -Drvt.test.seed=N} replays N; {@code -Drvt.test.seed=random} draws a fresh one
     * per test (to explore); by default a fixed seed per test class and variant, so that a build is reproducible.
     *
     * @return the seed
     */
    protected long chooseSeed() {
        String s = System.getProperty("rvt.test.seed");
        if ("random".equals(s)) {
            return System.nanoTime() ^ 0x5DEECE66DL;
        }
        return s != null ? Long.parseLong(s)
                : 0x5EED_0000L + (getClass().getSimpleName() + "[" + variant.name() + "]").hashCode();
    }

    /** Opens the fixture and two devices. */
    @BeforeEach
    void openFixture() {
        seed = chooseSeed();
        fixture = createFixture(seed);
        verbs = new Verbs(fixture);
        dev = fixture.open(2);
    }

    /**
     * Closes {@link #verbs} (its {@link PairConnector}: a CM closes with its last handle, its connections' QPs and
     * its GSI QPs destroyed, a DREQ sent for each established connection without waiting for the reply, so no CM
     * outlives its test waiting for its device's removal), then the fixture.
     */
    @AfterEach
    void closeFixture() {
        try {
            if (verbs != null) {
                verbs.close();
            }
        } finally {
            if (fixture != null) {
                fixture.close();
            }
        }
    }

    /**
     * Skips the test unless the driver supports {@code feature}.
     *
     * @param feature the feature
     */
    protected void require(Feature feature) {
        assumeTrue(fixture.supports(feature), "driver does not support " + feature);
    }
}
