package io.rvt.cm.impl;

import io.rvt.api.Device;
import io.rvt.api.Errno;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmException;
import io.rvt.cm.ConnectionManager;
import java.util.IdentityHashMap;
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
        synchronized (ENGINES) {
            if (!device.isAlive()) {
                throw new CmException(Errno.ENODEV, "device " + device.name() + " is gone", null, 0, 0, null, null,
                        0);
            }
            CmEngine e = ENGINES.get(device);
            if (e == null) {
                e = CmEngine.open(device, config);
                if (!e.isOpen()) {
                    // the device's removal began while the engine opened: its client call ended the engine
                    throw new CmException(Errno.ENODEV, "device " + device.name() + " is gone", null, 0, 0, null,
                            null, 0);
                }
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
}
