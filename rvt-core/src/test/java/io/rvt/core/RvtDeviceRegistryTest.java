package io.rvt.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.RvtDriver;
import java.util.List;
import org.junit.jupiter.api.Test;

class RvtDeviceRegistryTest {
    @Test
    void shouldRegisterGoodDriversAndReportRefusedOnesWhenDiscovering() {
        RvtDriver good = new TestDriver();
        RvtDriver broken = new TestDriver().without(Callback.QP_PRIV_FREE);
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry(List.of(good, broken))) {
            assertThat(registry.devices()).hasSize(1);
            Device d = registry.devices().get(0);
            assertThat(registry.device(d.name())).contains(d);
            assertThat(registry.device("no-such-device")).isEmpty();
            assertThat(registry.refused()).singleElement().asString().contains("qpPrivFree");
            assertThat(d.isAlive()).isTrue();
            registry.close();
            assertThat(d.isAlive()).as("close removes the devices").isFalse();
            assertThat(registry.devices()).isEmpty();
        }
    }

    @Test
    void shouldFindNoDriverWhenNoneIsOnThePath() {
        try (RvtDeviceRegistry registry = new RvtDeviceRegistry()) {
            // rvt-core's own tests have no META-INF/services entry for a driver
            assertThat(registry.devices()).isEmpty();
            assertThat(registry.refused()).isEmpty();
        }
    }
}
