package io.rvt.driver.sim;

import io.rvt.api.Device;
import io.rvt.core.RvtDevice;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricBuilder;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.FaultConfig;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Faults;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Variant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/** driver-sim's conformance fixture: simulated HCAs on a fresh fabric, deterministic or real-time. */
final class SimFixture implements DriverFixture {
    /** The conformance variant on a deterministic fabric: the test's thread runs it on virtual time. */
    static final Variant DETERMINISTIC = new Variant("deterministic", seed -> new SimFixture(seed, true));
    /** The conformance variant on a real-time fabric: fabric and send engines on their own threads. */
    static final Variant REAL_TIME = new Variant("real-time", seed -> new SimFixture(seed, false));

    private static final AtomicInteger FABRICS = new AtomicInteger();

    private final long seed;
    private final boolean deterministic;
    private final Fabric fabric;
    private final List<RvtDevice> devices = new ArrayList<>();
    private final List<SimDriver> drivers = new ArrayList<>();

    SimFixture(long seed, boolean deterministic) {
        this(seed, deterministic, b -> b);
    }

    /**
     * @param setup adds links or faults to the fabric's builder (already set to the mode and seed)
     */
    SimFixture(long seed, boolean deterministic, UnaryOperator<FabricBuilder> setup) {
        this.seed = seed;
        this.deterministic = deterministic;
        FabricBuilder b = Fabric.builder("conformance-" + FABRICS.incrementAndGet());
        this.fabric = setup.apply(deterministic ? b.deterministic(seed) : b.realTime().seed(seed)).build();
    }

    Fabric fabric() {
        return fabric;
    }

    List<SimDriver> drivers() {
        return drivers;
    }

    @Override
    public Device[] open(int count) {
        Device[] out = new Device[count];
        for (int i = 0; i < count; i++) {
            SimDriver d = SimDriver.builder(fabric).name("hca%d").build();
            RvtDevice dev = RvtDevice.register(d);
            drivers.add(d);
            devices.add(dev);
            out[i] = dev;
        }
        return out;
    }

    @Override
    public boolean progress() {
        return deterministic && fabric.step();
    }

    @Override
    public boolean supports(Feature feature) {
        return feature != Feature.DETERMINISTIC || deterministic;
    }

    @Override
    public void faults(Faults f) {
        long maxDelay = 20_000;
        fabric.defaultFaults(FaultConfig.builder().loss(f.loss()).duplication(f.duplicate())
                .reorder(f.reorder(), maxDelay).corruption(f.corrupt()).build());
    }

    @Override
    public void partition(boolean cut) {
        if (!cut) {
            fabric.healAll();
            return;
        }
        List<FabricPort> first = new ArrayList<>();
        List<FabricPort> rest = new ArrayList<>();
        for (int i = 0; i < drivers.size(); i++) {
            (i == 0 ? first : rest).add(drivers.get(i).fabricPort(1));
        }
        fabric.partition(first, rest);
    }

    @Override
    public long traceHash() {
        return fabric.traceHash();
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
