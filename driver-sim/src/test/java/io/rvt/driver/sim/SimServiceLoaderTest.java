package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.Rvt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Without OSGi: Rvt.open() finds rvt-core's registry, which finds driver-sim's HCA; traffic passes through it. */
class SimServiceLoaderTest {
    @Test
    @Timeout(30)
    void shouldFindSimulatedHcaAndPassTrafficWhenOpenedThroughServiceLoader() {
        System.setProperty(SimDriver.FABRIC_PROP_NAME, "service-loader-test");
        try (DeviceRegistry registry = Rvt.open()) {
            assertThat(registry.refused()).isEmpty();
            assertThat(registry.devices()).as("devices found by ServiceLoader").isNotEmpty();
            Device d = registry.devices().get(0);
            assertThat(d.driverName()).isEqualTo(SimDriver.DEFAULT_NAME);
            assertThat(d.name()).as("sim%d with the lowest free index").matches("sim[0-9]+");
            new RealTimeTraffic().sendChecked(d, d, 3);
        } finally {
            System.clearProperty(SimDriver.FABRIC_PROP_NAME);
            io.rvt.driver.sim.fabric.Fabric.find("service-loader-test").ifPresent(f -> f.close());
        }
    }
}
