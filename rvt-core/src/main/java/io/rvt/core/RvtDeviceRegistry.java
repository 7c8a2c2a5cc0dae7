package io.rvt.core;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.DriverRegistry;
import io.rvt.api.spi.RvtDriver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The {@link DeviceRegistry} outside OSGi, and the SPI's {@link DriverRegistry}. {@link #discover()} finds every
 * {@link RvtDriver} with {@link ServiceLoader} (module path: {@code provides}; class path:
 * {@code META-INF/services}); {@link #register} takes drivers the caller made. A driver that cannot be instantiated or fails validation during discovery is skipped and reported in
 * {@link #refused()}, so one broken driver does not hide the others.
 */
public final class RvtDeviceRegistry implements DriverRegistry {
    private static final System.Logger LOG = System.getLogger(RvtDeviceRegistry.class.getName());

    private final Iterable<RvtDriver> discoverable;
    private final List<RvtDevice> devices = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();

    /** An empty registry whose {@link #discover()} sees the drivers visible to rvt-core's class loader. */
    public RvtDeviceRegistry() {
        this(ServiceLoader.load(RvtDriver.class, RvtDeviceRegistry.class.getClassLoader()));
    }

    /**
     * @param discoverable what {@link #discover()} registers
     */
    RvtDeviceRegistry(Iterable<RvtDriver> discoverable) {
        this.discoverable = discoverable;
    }

    @Override
    public synchronized List<Device> discover() {
        List<Device> added = new ArrayList<>();
        var it = discoverable.iterator();
        while (true) {
            RvtDriver driver;
            try {
                if (!it.hasNext()) {
                    break;
                }
                driver = it.next();
            } catch (ServiceConfigurationError e) {
                refuse("a driver could not be loaded: " + e.getMessage());
                continue;
            }
            try {
                added.add(register(driver));
            } catch (VerbsException | IllegalArgumentException e) {
                refuse(e.getMessage());
            }
        }
        return added;
    }

    private void refuse(String why) {
        refused.add(why);
        LOG.log(System.Logger.Level.WARNING, "rvt: {0}", why);
    }

    @Override
    public synchronized Device register(RvtDriver driver) {
        RvtDevice dev = RvtDevice.register(driver);
        devices.add(dev);
        return dev;
    }

    @Override
    public boolean remove(Device device) {
        synchronized (this) {
            if (!devices.remove(device)) {
                return false;
            }
        }
        // Outside the lock: unregistering waits for the driver's threads.
        ((RvtDevice) device).unregister();
        return true;
    }

    @Override
    public synchronized List<Device> devices() {
        return Collections.unmodifiableList(new ArrayList<Device>(devices));
    }

    @Override
    public synchronized Optional<Device> device(String name) {
        for (RvtDevice d : devices) {
            if (d.name().equals(name)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    @Override
    public synchronized List<String> refused() {
        return List.copyOf(refused);
    }

    @Override
    public void close() {
        List<RvtDevice> all;
        synchronized (this) {
            all = new ArrayList<>(devices);
            devices.clear();
        }
        for (RvtDevice d : all) {
            d.unregister();
        }
    }
}
