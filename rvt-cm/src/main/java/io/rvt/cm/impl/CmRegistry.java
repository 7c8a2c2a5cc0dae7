package io.rvt.cm.impl;

import io.rvt.api.Device;
import io.rvt.api.Errno;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectionManager;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One CM per device: {@link ConnectionManager#of} hands out handles on the device's {@link CmEngine}, created by the
 * first and closed with the last (or when the device goes away).
 */
public final class CmRegistry {
    private static final Map<Device, CmEngine> ENGINES = new IdentityHashMap<>();

    private CmRegistry() {
    }

    /**
     * @param device the device
     * @param config the configuration
     * @return a new handle on the device's CM
     * @throws CmException ENODEV if the device is gone; EBUSY if its CM runs with another configuration
     */
    public static ConnectionManager acquire(Device device, CmConfig config) {
        if (device == null || config == null) {
            throw new CmException(Errno.EINVAL, "ConnectionManager.of needs a device and a configuration, got "
                    + device + " and " + config, null, 0, 0, null, null, 0);
        }
        sweepRemovedDevices();
        synchronized (ENGINES) {
            if (!device.isAlive()) {
                throw new CmException(Errno.ENODEV, "device " + device.name() + " is gone", null, 0, 0, null, null,
                        0);
            }
            CmEngine e = ENGINES.get(device);
            if (e == null) {
                e = CmEngine.open(device, config);
                ENGINES.put(device, e);
            } else if (!e.config().equals(config)) {
                throw new CmException(Errno.EBUSY, "device " + device.name() + " already has a connection manager "
                        + "running with " + e.config() + "; asked for " + config, null, 0, 0, null, null, 0);
            }
            e.retain();
            return new CmHandle(e);
        }
    }

    /**
     * Ends the engines of devices that were removed while their CM's removal check waits on a clock that no longer
     * runs (a deterministic fabric's virtual time, the fabric closed after the unregister): without this, every such
     * engine, its device, driver and fabric stayed reachable from here for the JVM's life (the conformance suites
     * retained ~5 MB per test). Outside the registry's lock: an engine ends under its own monitor and then takes
     * the registry's.
     */
    private static void sweepRemovedDevices() {
        List<CmEngine> gone = new ArrayList<>();
        synchronized (ENGINES) {
            for (CmEngine e : ENGINES.values()) {
                if (!e.device().isAlive()) {
                    gone.add(e);
                }
            }
        }
        for (CmEngine e : gone) {
            e.endIfDeviceGone();
        }
    }

    /**
     * Forgets an engine that closed (last handle released or device gone).
     *
     * @param engine the engine
     */
    static void remove(CmEngine engine) {
        synchronized (ENGINES) {
            ENGINES.remove(engine.device(), engine);
        }
    }

    /**
     * Releases a handle's reference: the last one closes the engine.
     *
     * @param engine the engine
     */
    static void release(CmEngine engine) {
        boolean last;
        synchronized (ENGINES) {
            last = engine.releaseRef();
            if (last) {
                ENGINES.remove(engine.device(), engine);
            }
        }
        if (last) {
            engine.close();
        }
    }

    /** @return the number of devices with a CM (for leak tests) */
    public static int engineCount() {
        synchronized (ENGINES) {
            return ENGINES.size();
        }
    }

    /** @return true while the shared real-time timer thread runs (for leak tests) */
    public static boolean timerThreadRunning() {
        return SharedTimer.isRunning();
    }
}
