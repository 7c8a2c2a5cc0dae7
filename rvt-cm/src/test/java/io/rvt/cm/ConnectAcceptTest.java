package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpState;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import org.junit.jupiter.api.Test;

class ConnectAcceptTest {
    @Test
    void shouldConnectCarryTrafficAndDisconnectWhenBothSidesUseTheCm() {
        try (SimLab lab = new SimLab(1)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            Listener l = server.cm.listen(18515);
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(18515)
                    .qp(client.qp()).privateData(new byte[] {1, 2, 3}));
            ConnectRequest req = lab.await("request", l.nextRequest());
            assertThat(req.privateData()).startsWith(1, 2, 3);
            assertThat(req.remoteGid()).isEqualTo(client.gid());
            Connection s = req.acceptAsync(server.qp(), new byte[] {9});
            s.qp().postRecv(new RecvWorkRequest(1).wrId(7).sge(server.mr, 0, 64));
            lab.await("client established", c.established());
            lab.await("server established", s.established());
            assertThat(c.state()).isEqualTo(CmState.ESTABLISHED);
            assertThat(c.remotePrivateData()).startsWith(9);
            assertThat(c.qp().state()).isEqualTo(QpState.RTS);
            assertThat(s.qp().state()).isEqualTo(QpState.RTS);
            assertThat(c.remoteQpn()).isEqualTo(s.qp().qpNum());
            assertThat(s.remoteQpn()).isEqualTo(c.qp().qpNum());
            assertThat(c.sendPsn()).isEqualTo(s.receivePsn());

            client.buf.put(0, (byte) 42);
            c.qp().postSend(new SendWorkRequest(1).wrId(5).opcode(WrOpcode.SEND).sge(client.mr, 0, 16));
            WorkCompletion got = lab.poll(server.cq);
            assertThat(got.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(got.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(server.buf.get(0)).isEqualTo((byte) 42);

            c.disconnect(new byte[] {4});
            CmEvent ev = lab.await("server sees the disconnect", s.disconnected());
            assertThat(ev.privateData()).startsWith(4);
            lab.await("client disconnected", c.disconnected());
            assertThat(s.qp().state()).isEqualTo(QpState.ERR);
            assertThat(c.qp().state()).isEqualTo(QpState.ERR);
            c.close();
            s.close();
            lab.runUntil("timewait over", () -> client.cm.idCount() == 0 && server.cm.idCount() == 1);
        }
    }
}
