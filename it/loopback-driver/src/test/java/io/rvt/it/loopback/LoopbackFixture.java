package io.rvt.it.loopback;

import io.rvt.api.Device;
import io.rvt.cm.CmConnector;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Feature;
import io.rvt.testkit.PairConnector;
import io.rvt.testkit.Variant;
import java.util.Arrays;

/**
 * The loopback driver's conformance fixture, a single-device fixture: the driver has one device and no wire, so every
 * "device" the suite opens is that one device, registered with rvt-core. Its QPs reach each other through rvt-core's
 * software loopback ({@code rucLoopback}: RC and UC as rdmavt's {@code rvt_ruc_loopback}, UD and GSI as rvt-core's
 * {@code RvtUdLoopback}). {@link #ONE_DEVICE} connects the suite's pairs by {@code modify_qp}; {@link #CM_CONNECTED}
 * through the device's one connection manager (rvt-cm's {@code CmConnector}), whose REQ, REP and RTU go from its GSI
 * QP to itself on port 1 and whose listener is on the same device as the REQ's sender.
 */
final class LoopbackFixture implements DriverFixture {
    /** The loopback driver's first variant: one device, its engine thread its own, pairs connected directly. */
    static final Variant ONE_DEVICE = new Variant("one device", s -> new LoopbackFixture(s, false));
    /** One device with its pairs connected through rvt-cm, over the device's GSI QP to itself. */
    static final Variant CM_CONNECTED = new Variant("one device, CM-connected", s -> new LoopbackFixture(s, true));

    private final long seed;
    private final boolean cm;
    private RvtDevice device;

    private LoopbackFixture(long seed, boolean cm) {
        this.seed = seed;
        this.cm = cm;
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

    /** @return for {@link #CM_CONNECTED} a connector through rvt-cm on real time, else the direct one */
    @Override
    public PairConnector connector() {
        return cm ? new CmConnector(CmConnector.config(seed).build()) : PairConnector.direct();
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
