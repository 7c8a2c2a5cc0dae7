package io.rvt.cm.impl;

import io.rvt.api.Device;
import io.rvt.cm.CmConfig;
import io.rvt.cm.CmProvider;
import io.rvt.cm.ConnectionManager;

/** rvt-cm's {@link CmProvider}: one CM per device, {@link CmRegistry}'s. */
public final class RegistryProvider implements CmProvider {
    /** For {@link java.util.ServiceLoader}. */
    public RegistryProvider() {
    }

    @Override
    public ConnectionManager acquire(Device device, CmConfig config) {
        return CmRegistry.acquire(device, config);
    }
}
