package io.rvt.launcher;

import java.util.List;
import java.util.Map;

/**
 * The two HCAs {@link FelixHost} asks for, as an OSGi user would: the driver bundle to install and the Config Admin
 * factory configurations that make one HCA each.
 */
interface HcaConfigurations {
    /** @return the driver */
    DriverKind driver();

    /** @return who runs the network between the HCAs, as the host reports it */
    default Threading threadingMode() {
        return Threading.DEDICATED;
    }

    /** @return the driver bundle's jar name in the bundle directory, without ".jar" */
    String bundle();

    /** @return the driver's Config Admin factory PID */
    String factoryPid();

    /**
     * @param spin whether network threads may busy-spin when idle (a measuring command) or should back off (an idle
     *             shell), where the driver has the choice
     * @return one configuration per HCA, in order
     */
    List<Map<String, Object>> properties(boolean spin);

    /**
     * @return the network between the HCAs, to follow the driver's name in the host's description, e.g.
     *         {@code  on fabric 'rvt' (real-time, no faults)}
     */
    String network();
}
