package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One CM per device, shared by handles, and its end: the last handle, or the device going away. */
class CmLifecycleTest {
    @Test
    void shouldShareOneCmPerDeviceAndCloseItWithTheLastHandle() {
        try (SimLab lab = new SimLab(31)) {
            SimLab.Host h = lab.host();
            int qps = lab.qpCount(h);
            ConnectionManager second = ConnectionManager.of(h.device, h.cm.config());
            Listener l = second.listen(10);
            assertThatThrownBy(() -> h.cm.listen(10)).extracting(e -> ((CmException) e).errno())
                    .isEqualTo(Errno.EADDRINUSE);
            assertThatThrownBy(() -> ConnectionManager.of(h.device)).as("another configuration")
                    .extracting(e -> ((CmException) e).errno()).isEqualTo(Errno.EBUSY);
            second.close();
            second.close(); // idempotent
            assertThat(second.isOpen()).isFalse();
            assertThatThrownBy(() -> second.listen(11)).extracting(e -> ((CmException) e).errno())
                    .isEqualTo(Errno.ENODEV);
            assertThat(h.cm.isOpen()).isTrue();
            assertThat(l.isOpen()).as("the CM lives on while a handle is open").isTrue();
            h.cm.close();
            assertThat(l.isOpen()).isFalse();
            assertThat(lab.qpCount(h)).as("the GSI QP is gone").isEqualTo(qps - 1);
            ConnectionManager again = ConnectionManager.of(h.device);
            assertThat(again.isOpen()).isTrue();
            again.close();
        }
    }

    @Test
    void shouldEndEveryConnectionWithDeviceRemovalWhenTheDeviceGoes() {
        try (SimLab lab = new SimLab(32)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.listen(1, r -> r.acceptAsync(server.qp(), null));
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(1)
                    .qp(client.qp()));
            lab.await("established", c.established());
            List<CmEventType> events = new ArrayList<>();
            c.addEventListener(e -> events.add(e.type()));
            lab.rvtDevice(client).unregister();
            lab.runUntil("the CM notices", () -> !client.cm.isOpen());
            CmEvent ev = lab.await("disconnected", c.disconnected());
            assertThat(ev.type()).isEqualTo(CmEventType.DEVICE_REMOVAL);
            assertThat(events).contains(CmEventType.DEVICE_REMOVAL);
            assertThat(c.state()).isEqualTo(CmState.CLOSED);
            assertThatThrownBy(() -> client.cm.listen(2)).extracting(e -> ((CmException) e).errno())
                    .isEqualTo(Errno.ENODEV);
            c.close();
        }
    }
}
