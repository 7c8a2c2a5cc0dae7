package io.rvt.driver.sim.fabric;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told when a port's link goes down or comes up (the HCA turns this into a port state change and an
 * {@code IB_EVENT_PORT_ERR}/{@code IB_EVENT_PORT_ACTIVE} event). Called on the thread that changed the state: the
 * caller of {@link Link#down()}/{@link Link#up()}, or the event loop's driving thread for a scheduled change.
 */
@ConsumerType
@FunctionalInterface
public interface LinkListener {
    /**
     * @param port the port whose link changed
     * @param up true if the link came up, false if it went down
     */
    void onLinkStateChange(FabricPort port, boolean up);
}
