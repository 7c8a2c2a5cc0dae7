package io.rvt.driver.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Device;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.Rvt;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.testkit.DriverFixture;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Feature;
import io.rvt.testkit.Verbs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Without OSGi: Rvt.open() finds rvt-core's registry, which finds driver-sim's HCA; traffic passes through it. */
class SimServiceLoaderTest {
    /** The suite's helpers need a fixture only to make progress; a real-time fabric makes its own. */
    private static final class RealTime implements DriverFixture {
        @Override
        public Device[] open(int count) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean progress() {
            return false;
        }

        @Override
        public boolean supports(Feature feature) {
            return false;
        }

        @Override
        public void close() {
        }
    }

    @Test
    @Timeout(30)
    void shouldFindSimulatedHcaAndPassTrafficWhenOpenedThroughServiceLoader() {
        System.setProperty(SimDriver.FABRIC_PROP_NAME, "service-loader-test");
        try (DeviceRegistry registry = Rvt.open()) {
            assertThat(registry.refused()).isEmpty();
            assertThat(registry.devices()).as("devices found by ServiceLoader").isNotEmpty();
            Device d = registry.devices().get(0);
            assertThat(d.driverName()).startsWith("sim");
            Verbs v = new Verbs(new RealTime());
            Endpoint[] p = v.connected(d, d, QpType.RC, 4096, 7, 1);
            Verbs.fill(p[0].buffer, 0, 100, 7);
            p[1].qp.postRecv(new RecvWorkRequest(1).wrId(1).sge(p[1].mr, 0, 4096));
            p[0].qp.postSend(new SendWorkRequest(1).wrId(2).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 100));
            Verbs.assertSuccess(v.await(p[0].sendCq, 1).get(0), 2);
            Verbs.assertSuccess(v.await(p[1].recvCq, 1).get(0), 1);
            Verbs.assertPattern(p[1].buffer, 0, 100, 7);
        } finally {
            System.clearProperty(SimDriver.FABRIC_PROP_NAME);
            io.rvt.driver.sim.fabric.Fabric.find("service-loader-test").ifPresent(f -> f.close());
        }
    }
}
