package io.rvt.cm;

import io.rvt.api.Device;

/**
 * What {@link ConnectionManager#of(Device, CmConfig)} calls: rvt-cm's implementation provides the one service of this
 * type, which the API finds with {@link java.util.ServiceLoader} through rvt-cm's own class loader (JPMS
 * {@code provides}; {@code META-INF/services} on the class path and in OSGi), so that the API package names no class
 * of the implementation's and the two packages form no cycle. An rvt extension with no librdmacm counterpart; not for
 * applications, which call {@link ConnectionManager#of}.
 */
@org.osgi.annotation.versioning.ProviderType
public interface CmProvider {
    /**
     * The device's connection manager, created with {@code config} if it is the first.
     *
     * @param device the device
     * @param config the configuration
     * @return a new handle on the device's CM
     * @throws CmException EINVAL for a null argument, ENODEV if the device is gone, EBUSY if the device's CM runs with
     *                     another configuration
     */
    ConnectionManager acquire(Device device, CmConfig config);
}
