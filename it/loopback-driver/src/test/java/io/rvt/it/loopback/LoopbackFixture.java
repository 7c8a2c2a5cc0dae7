package io.rvt.it.loopback;

import io.rvt.api.Device;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Variant;
import java.util.Arrays;

/**
 * The loopback driver's conformance fixture, a single-device fixture: the driver has one device and no wire, so every
 * "device" the suite opens is that one device, registered with rvt-core. Its QPs reach each other through rvt-core's
 * software loopback ({@code rucLoopback}: RC and UC as rdmavt's {@code rvt_ruc_loopback}, UD and GSI as rvt-core's
 * {@code RvtUdLoopback}), and the suite's pairs connect through the device's one connection manager, whose REQ, REP
 * and RTU go from its GSI QP to itself.
 */
final class LoopbackFixture implements DriverFixture {
    /** The loopback driver's one variant: one device, its engine thread its own. */
    static final Variant ONE_DEVICE = new Variant("one device", LoopbackFixture::new);

    private final long seed;
    private RvtDevice device;

    LoopbackFixture(long seed) {
        this.seed = seed;
    }

    /** @return {@code count} times the one device, registered on the first call */
    @Override
    public Device[] open(int count) {
        if (device == null) {
            device = RvtDevice.register(new LoopbackDriver());
        }
        Device[] out = new Device[count];
        Arrays.fill(out, device);
        return out;
    }

    @Override
    public boolean progress() {
        return false; // the driver's engine thread and the posting threads run the loopback
    }

    /**
     * UC, UD, atomics and SRQs; no multicast (no groups), no faults (no wire), not deterministic (a thread), one
     * device.
     */
    @Override
    public boolean supports(Feature feature) {
        return switch (feature) {
            case UC, UD, ATOMICS, SRQ -> true;
            case MULTICAST, FAULT_INJECTION, DETERMINISTIC, SEPARATE_DEVICES -> false;
        };
    }

    @Override
    public long seed() {
        return seed;
    }

    @Override
    public void close() {
        if (device != null) {
            device.unregister();
        }
    }
}
