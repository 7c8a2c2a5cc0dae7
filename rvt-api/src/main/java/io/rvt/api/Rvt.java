package io.rvt.api;

import java.util.ServiceLoader;

/**
 * The entry point of rvt outside OSGi: {@code try (DeviceRegistry r = Rvt.open()) { Device d = r.devices().get(0); }}.
 */
public final class Rvt {
    private Rvt() {
    }

    /**
     * Opens a device registry that has {@link DeviceRegistry#discover() discovered} every driver on the module or class
     * path (found with {@link ServiceLoader}).
     *
     * @return a new registry (close it to remove its devices)
     * @throws VerbsException ENODEV if rvt-core is not on the module or class path
     */
    public static DeviceRegistry open() {
        DeviceRegistry registry = create();
        registry.discover();
        return registry;
    }

    /**
     * Creates an empty device registry; {@link DeviceRegistry#discover()} fills it. To register drivers the caller
     * builds itself, {@code io.rvt.api.spi.DriverRegistry.create()} gives the same kind of registry with
     * {@code register} (driver registration is SPI).
     *
     * @return a new registry (close it to remove its devices)
     * @throws VerbsException ENODEV if rvt-core is not on the module or class path
     */
    public static DeviceRegistry create() {
        return ServiceLoader.load(DeviceRegistry.class, Rvt.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new VerbsException(Errno.ENODEV,
                        "no io.rvt.api.DeviceRegistry found: put rvt-core (io.rvt.core) on the module or class path"));
    }
}
