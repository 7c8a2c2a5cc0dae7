package io.rvt.core;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.RvtDriver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The {@link DeviceRegistry} outside OSGi: finds every {@link RvtDriver} with {@link ServiceLoader} (module path:
 * {@code provides}; class path: {@code META-INF/services}), registers each ({@link RvtDevice#register}) and keeps the
 * devices. A driver that cannot be instantiated or fails validation is skipped and reported in {@link #refused()},
 * so one broken driver does not hide the others.
 */
public final class RvtDeviceRegistry implements DeviceRegistry {
    private static final System.Logger LOG = System.getLogger(RvtDeviceRegistry.class.getName());

    private final List<RvtDevice> devices = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();

    /** Discovers and registers the drivers visible to rvt-core's class loader. */
    public RvtDeviceRegistry() {
        this(ServiceLoader.load(RvtDriver.class, RvtDeviceRegistry.class.getClassLoader()));
    }

    /**
     * @param drivers the drivers to register
     */
    RvtDeviceRegistry(Iterable<RvtDriver> drivers) {
        var it = drivers.iterator();
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
                devices.add(RvtDevice.register(driver));
            } catch (VerbsException | IllegalArgumentException e) {
                refuse(e.getMessage());
            }
        }
    }

    private void refuse(String why) {
        refused.add(why);
        LOG.log(System.Logger.Level.WARNING, "rvt: {0}", why);
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
    public synchronized void close() {
        for (RvtDevice d : devices) {
            d.unregister();
        }
        devices.clear();
    }
}
