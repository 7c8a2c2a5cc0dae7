package io.rvt.api;

import java.util.ServiceLoader;

/**
 * The entry point of rvt outside OSGi: {@code try (DeviceRegistry r = Rvt.open()) { Device d = r.devices().get(0); }}.
 */
public final class Rvt {
    private Rvt() {
    }

    /**
     * Opens the device registry: loads rvt-core's {@link DeviceRegistry} with {@link ServiceLoader}, which registers a
     * device for every driver it finds the same way.
     *
     * @return a new registry (close it to remove its devices)
     * @throws VerbsException ENODEV if rvt-core is not on the module or class path
     */
    public static DeviceRegistry open() {
        return ServiceLoader.load(DeviceRegistry.class, Rvt.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new VerbsException(Errno.ENODEV,
                        "no io.rvt.api.DeviceRegistry found: put rvt-core (io.rvt.core) on the module or class path"));
    }
}
