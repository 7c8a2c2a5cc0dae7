package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.cm.impl.CmRegistry;
import io.rvt.core.RvtDevice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CM is its device's client ({@code Device.registerClient}, as ib_cm's {@code cm_remove_one} is an
 * {@code ib_client}'s remove): a removal ends it before the unregister returns, whatever its clock does, and a CM that
 * closes deregisters.
 */
class CmDeviceClientTest {

    @Test
    void shouldEndTheCmAndItsConnectionsBeforeTheUnregisterReturnsThoughTheFabricNeverRunsAgain() {
        try (SimLab lab = new SimLab(31)) {
            SimLab.Host server = lab.host();
            SimLab.Host gone = lab.host();
            server.cm.listen(1, r -> r.acceptAsync(server.qp(), null));
            Connection c = gone.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(1)
                    .qp(gone.qp()));
            lab.await("established", c.established());
            List<CmEventType> events = new ArrayList<>();
            c.addEventListener(e -> events.add(e.type()));
            int withIt = CmRegistry.engineCount();

            // removed with its CM handle open, and the fabric (the CM's clock) never runs again: the CM's own
            // removal check is a timer on that virtual time and would never fire
            lab.rvtDevice(gone).unregister();

            assertThat(CmRegistry.engineCount()).as("CMs registered once the unregister returned")
                    .isEqualTo(withIt - 1);
            assertThat(gone.cm.isOpen()).isFalse();
            assertThat(gone.cm.idCount()).isZero();
            assertThat(c.disconnected()).as("ended in the unregister").isDone();
            assertThat(c.disconnected().join().type()).isEqualTo(CmEventType.DEVICE_REMOVAL);
            assertThat(events).containsExactly(CmEventType.DEVICE_REMOVAL);
            assertThat(c.state()).isEqualTo(CmState.CLOSED);
            assertThat(lab.rvtDevice(gone).clientCount()).isZero();
            assertThat(lab.rvtDevice(gone).clientFailures()).isZero();
            c.close();
        }
    }

    @Test
    void shouldDeregisterFromItsDeviceWhenTheLastHandleCloses() {
        try (SimLab lab = new SimLab(33)) {
            SimLab.Host h = lab.host();
            RvtDevice dev = lab.rvtDevice(h);
            int clients = dev.clientCount();
            assertThat(clients).as("the CM is a client of its device").isEqualTo(1);
            h.cm.close();
            assertThat(dev.clientCount()).as("a closed CM leaves nothing on its device").isZero();
            dev.unregister();
            assertThat(dev.clientFailures()).isZero();
        }
    }
}
