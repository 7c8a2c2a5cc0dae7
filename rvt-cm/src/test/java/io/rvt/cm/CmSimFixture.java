package io.rvt.cm;

import io.rvt.api.Device;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.SimDriver;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricBuilder;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Feature;
import io.rvt.testkit.PairConnector;
import io.rvt.testkit.Variant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * driver-sim for the conformance kit with its pairs connected through rvt-cm ({@link CmConnector}): deterministic
 * (the test thread runs the fabric, the CMs' timers on its virtual time) or in real time. driver-sim's own tests run
 * the kit with pairs connected directly; these are the CM-connected runs. No fault injection: the suites run here
 * ask for none.
 */
final class CmSimFixture implements DriverFixture {
    static final Variant DETERMINISTIC = new Variant("deterministic, CM-connected", s -> new CmSimFixture(s, true));
    static final Variant REAL_TIME = new Variant("real-time, CM-connected", s -> new CmSimFixture(s, false));

    private static final AtomicInteger FABRICS = new AtomicInteger();

    private final long seed;
    private final boolean deterministic;
    private final Fabric fabric;
    private final List<RvtDevice> devices = new ArrayList<>();

    private CmSimFixture(long seed, boolean deterministic) {
        this.seed = seed;
        this.deterministic = deterministic;
        FabricBuilder b = Fabric.builder("cm-conformance-" + FABRICS.incrementAndGet());
        this.fabric = (deterministic ? b.deterministic(seed) : b.realTime().seed(seed)).build();
    }

    @Override
    public Device[] open(int count) {
        Device[] out = new Device[count];
        for (int i = 0; i < count; i++) {
            RvtDevice dev = RvtDevice.register(SimDriver.builder(fabric).name("hca%d").build());
            devices.add(dev);
            out[i] = dev;
        }
        return out;
    }

    @Override
    public PairConnector connector() {
        CmConfig.Builder config = CmConnector.config(seed);
        return new CmConnector(deterministic ? config.timerService(fabric.timerService()).build() : config.build());
    }

    @Override
    public boolean progress() {
        return deterministic && fabric.step();
    }

    @Override
    public boolean supports(Feature feature) {
        return feature != Feature.FAULT_INJECTION && (feature != Feature.DETERMINISTIC || deterministic);
    }

    @Override
    public long seed() {
        return seed;
    }

    @Override
    public void close() {
        for (RvtDevice d : devices) {
            d.unregister();
        }
        fabric.close();
    }
}
