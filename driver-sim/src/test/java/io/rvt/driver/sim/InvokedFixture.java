package io.rvt.driver.sim;

import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.WorkCompletion;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Verbs;
import java.util.function.IntSupplier;

/**
 * A test's fixture for {@link io.rvt.testkit.Verbs} on a fabric the test's thread runs itself, as
 * {@code AgentInvoker} would: each progress is one duty cycle of the test's agents. The devices come from the test.
 */
final class InvokedFixture implements DriverFixture {
    private final IntSupplier cycle;

    /** @param cycle runs one duty cycle and returns its work */
    InvokedFixture(IntSupplier cycle) {
        this.cycle = cycle;
    }

    @Override
    public Device[] open(int count) {
        throw new UnsupportedOperationException("devices come from the test");
    }

    @Override
    public boolean progress() {
        return cycle.getAsInt() > 0;
    }

    @Override
    public boolean supports(Feature feature) {
        return false;
    }

    @Override
    public void close() {
    }

    /**
     * Polls {@code cq} until empty, without progress, each completion asserted successful.
     *
     * @param cq the CQ
     * @return the completions polled
     */
    static int pollSuccesses(CompletionQueue cq) {
        WorkCompletion wc = new WorkCompletion();
        int n = 0;
        while (cq.pollCq(wc)) {
            Verbs.assertSuccess(wc, wc.wrId());
            n++;
        }
        return n;
    }

    /**
     * A test's teardown: closes its verbs (null if none), then unregisters its two devices and closes their fabric
     * (devices null: set-up never got that far).
     */
    static void tearDown(Verbs verbs, RvtDevice a, RvtDevice b, Fabric fabric) {
        if (verbs != null) {
            verbs.close();
        }
        if (a != null) {
            a.unregister();
            b.unregister();
            fabric.close();
        }
    }
}
