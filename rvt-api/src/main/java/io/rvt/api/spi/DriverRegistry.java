package io.rvt.api.spi;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.Errno;
import io.rvt.api.Rvt;
import io.rvt.api.VerbsException;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A {@link DeviceRegistry} that also takes drivers the caller made, the driver's side of the registry outside OSGi
 * (under OSGi, a driver registers by publishing its {@link RvtDriver} service). rvt-core's registry is one: a
 * simulated HCA on a fabric with faults, say, is registered with
 * {@code try (DriverRegistry r = DriverRegistry.create()) { Device d = r.register(driver); }}. Thread-safe.
 */
@ProviderType
public interface DriverRegistry extends DeviceRegistry {
    /**
     * Registers a driver the caller made and returns its device. Mirrors {@code rvt_register_device}.
     *
     * @param driver the driver
     * @return the new device
     * @throws DriverValidationException (a {@link VerbsException}, EINVAL) if the driver breaks the SPI (a missing
     *         callback, bad parameters; the message names the problem); the registry is left as it was
     */
    Device register(RvtDriver driver);

    /**
     * Creates an empty registry, rvt-core's ({@link Rvt#create()}, found with {@link java.util.ServiceLoader}), for
     * drivers the caller builds and registers itself.
     *
     * @return a new registry (close it to remove its devices)
     * @throws VerbsException ENODEV if rvt-core is not on the module or class path, or its registry takes no drivers
     */
    static DriverRegistry create() {
        DeviceRegistry registry = Rvt.create();
        if (registry instanceof DriverRegistry drivers) {
            return drivers;
        }
        registry.close();
        throw new VerbsException(Errno.ENODEV, "the device registry " + registry.getClass().getName()
                + " takes no drivers: it is not an io.rvt.api.spi.DriverRegistry");
    }
}
