package io.rvt.api.spi;

import io.rvt.api.PortAttr;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * The port query a driver hands rvt-core ({@link RvtDriver#portQuery()}): rdmavt's {@code query_port_state} pointer
 * of {@code struct rvt_driver_provided}. Required by {@link Verb#QUERY_PORT}: registration refuses a driver that
 * hands in none unless it declines that verb.
 */
@ConsumerType
public interface PortQuery {
    /**
     * Mirrors {@code query_port_state}: fill the port's state, LID, MTU and link fields after rvt filled its own.
     * No lock held.
     *
     * @param rdi the device
     * @param portNum the port, 1-based
     * @param props filled in place
     * @return 0, or a negative errno returned by {@code queryPort}
     */
    int queryPortState(DriverDevice rdi, int portNum, PortAttr props);
}
