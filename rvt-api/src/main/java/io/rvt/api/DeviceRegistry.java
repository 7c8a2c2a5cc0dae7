package io.rvt.api;

import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The devices of rvt outside OSGi (under OSGi, devices are services instead). rvt-core provides it through
 * {@link java.util.ServiceLoader}; {@link Rvt#open()} returns one that has already {@link #discover() discovered}
 * every driver on the module or class path, {@link Rvt#create()} an empty one. A caller that builds drivers itself (a
 * simulated HCA on a fabric with faults, say) registers them through the SPI's registry of this kind,
 * {@code io.rvt.api.spi.DriverRegistry} ({@code DriverRegistry.create().register(driver)}): registering a driver is
 * the driver's side of rvt, so the verbs API does not name it. Devices live until they are {@link #remove removed}
 * or the registry is {@link #close() closed}. Thread-safe.
 */
@ProviderType
public interface DeviceRegistry extends AutoCloseable {
    /**
     * Finds every driver ({@code io.rvt.api.spi.RvtDriver}) with {@link java.util.ServiceLoader} (module path:
     * {@code provides}; class path: {@code META-INF/services}) and registers each. A driver that cannot be made or fails validation is skipped and
     * listed in {@link #refused()}, so one broken driver does not hide the others.
     *
     * @return the devices this call added, in discovery order
     */
    List<Device> discover();

    /**
     * Removes a device: its clients ({@link Device#registerClient}) are told, newest first, then its QPs move to the
     * error state, posted work is flushed with {@code WR_FLUSH_ERR}, the application's event handler sees
     * {@link AsyncEventType#DEVICE_REMOVAL}, and the driver is told to stop; all before this returns. Mirrors
     * {@code rvt_unregister_device}.
     *
     * @param device a device of this registry
     * @return true if it was registered here and is now removed, false if it was not registered here
     */
    boolean remove(Device device);

    /** @return the registered devices, in registration order */
    List<Device> devices();

    /**
     * @param name a device name ({@link Device#name()})
     * @return the device with that name
     */
    Optional<Device> device(String name);

    /** @return drivers that were found but refused, one line each naming the driver and the reason */
    List<String> refused();

    /** Removes every device (their QPs move to the error state, posted work is flushed). */
    @Override
    void close();
}
