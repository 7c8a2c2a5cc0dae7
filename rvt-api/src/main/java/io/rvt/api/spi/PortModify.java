package io.rvt.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The port changes a driver hands rvt-core ({@link RvtDriver#portModify()}): rdmavt's {@code shut_down_port} and
 * {@code cap_mask_chg} pointers of {@code struct rvt_driver_provided}. Required by {@link Verb#MODIFY_PORT}:
 * registration refuses a driver that hands in none unless it declines that verb.
 */
@ConsumerType
public interface PortModify {
    /**
     * Mirrors {@code shut_down_port}. No lock held.
     *
     * @param rdi the device
     * @param portNum the port, 1-based
     * @return 0, or a negative errno returned by {@code modifyPort}
     */
    int shutDownPort(DriverDevice rdi, int portNum);

    /**
     * Mirrors {@code cap_mask_chg}: the port's capability mask changed (send a trap). No lock held.
     *
     * @param rdi the device
     * @param portNum the port, 1-based
     */
    void capMaskChg(DriverDevice rdi, int portNum);
}
