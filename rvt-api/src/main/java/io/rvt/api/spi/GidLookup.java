package io.rvt.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The GID lookup a driver hands rvt-core ({@link RvtDriver#gidLookup()}): rdmavt's {@code get_guid_be} pointer of
 * {@code struct rvt_driver_provided}. Required by {@link Verb#QUERY_GID}: registration refuses a driver that hands in
 * none unless it declines that verb (rvt-core's UD loopback then writes interface id 0 into the GRH's source GID).
 */
@ConsumerType
public interface GidLookup {
    /**
     * Mirrors {@code get_guid_be}: the interface id of GID {@code guidIndex} of {@code port}. No lock held.
     *
     * @param rdi the device
     * @param port the port
     * @param guidIndex the GID index
     * @return the interface id (the lower 64 bits of the GID)
     * @throws io.rvt.api.VerbsException EINVAL for a bad index
     */
    long getGuidBe(DriverDevice rdi, DriverPort port, int guidIndex);
}
