package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.testkit.ConformanceTest;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Variant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite's teardown closes the test's {@code Verbs} (its {@link CmConnector}'s connection managers,
 * on a fixture that connects pairs through rvt-cm) before the fixture
 * removes the devices: a connection a test leaves open ends by the CM's close (DISCONNECTED), not by the removal
 * (DEVICE_REMOVAL, what a CM still open when its device goes reports). Checked after the teardown ran, in
 * {@code @AfterAll}.
 */
class CmConformanceTeardownTest extends ConformanceTest {
    /** The connections the tests left open, both sides, for the check after their teardown. */
    private static final List<Connection> LEFT_OPEN = new CopyOnWriteArrayList<>();

    static List<Variant> variants() {
        return List.of(CmSimFixture.DETERMINISTIC);
    }

    @Test
    void shouldLeaveAnEstablishedConnectionToTheTeardown() {
        Endpoint[] p = verbs.connected(dev[0], dev[1], QpType.RC, 4096, 7, 1);
        LEFT_OPEN.add((Connection) p[0].connection);
        LEFT_OPEN.add((Connection) p[1].connection);
        assertThat(((Connection) p[0].connection).disconnected()).isNotDone();
    }

    @AfterAll
    static void shouldHaveClosedTheConnectionManagersBeforeTheDevicesWent() {
        assertThat(LEFT_OPEN).hasSize(2);
        for (Connection c : LEFT_OPEN) {
            assertThat(c.disconnected()).as("ended by the teardown").isDone();
            CmEvent ev = c.disconnected().join();
            assertThat(ev.type()).as("how the connection ended").isEqualTo(CmEventType.DISCONNECTED);
        }
    }
}
