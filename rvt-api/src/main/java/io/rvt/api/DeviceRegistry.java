package io.rvt.api;

import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The devices of the drivers found without OSGi: rvt-core provides it through {@link java.util.ServiceLoader}, finds
 * every {@code io.rvt.api.spi.RvtDriver} the same way (module path: {@code provides}; class path:
 * {@code META-INF/services}), registers each and keeps the devices until {@link #close()}. Under OSGi, devices are
 * services instead. Thread-safe.
 */
@ProviderType
public interface DeviceRegistry extends AutoCloseable {
    /** @return the registered devices, in discovery order */
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
