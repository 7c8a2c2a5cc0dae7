/**
 * The rvt command ({@code ./rvt}): devices, ping-pong, perftest-style measurements and counters on simulated HCAs,
 * hosted in a plain-Java device registry ({@code --no-osgi}) or an embedded OSGi framework.
 */
module io.rvt.launcher {
    requires io.rvt.api;
    requires io.rvt.driver.sim;

    uses io.rvt.api.DeviceRegistry;
}
