package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.PathMtu;
import io.rvt.api.QpState;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The CM's protocol over driver-sim in deterministic mode: answers, refusals, timeouts, retries. */
class CmProtocolTest {
    private static ConnectOptions to(SimLab.Host server, SimLab.Host client, int port) {
        return new ConnectOptions().destination(server.gid()).port(port).qp(client.qp());
    }

    private static CmException failure(SimLab lab, Connection c) {
        lab.runUntil("the attempt ends", () -> c.established().isDone());
        Throwable t = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> c.established().join()).getCause();
        assertThat(t).isInstanceOf(CmException.class);
        return (CmException) t;
    }

    @Test
    void shouldFailWithReasonAndPrivateDataWhenTheListenerRejects() {
        try (SimLab lab = new SimLab(2)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.listen(7000, req -> req.reject(new byte[] {'n', 'o'}));
            Connection c = client.cm.connectAsync(to(server, client, 7000));
            CmException e = failure(lab, c);
            assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
            assertThat(e.rejectReason()).isEqualTo(RejectReason.CONSUMER_DEFINED);
            assertThat(e.rejectPrivateData()).startsWith('n', 'o');
            assertThat(e.port()).isEqualTo(7000);
            assertThat(e.serviceId()).isEqualTo(0x0000_0000_0106_0000L | 7000);
            assertThat(e.peer()).isEqualTo(server.gid());
            assertThat(e.getMessage()).contains("refused", "port 7000", "0000000001061b58", server.gid().toString());
            assertThat(c.state()).isEqualTo(CmState.CLOSED);
            assertThat(c.qp().state()).isEqualTo(QpState.ERR);
            c.close();
            assertThat(c.qp()).isNull();
            assertThat(server.cm.idCount()).as("the listener only").isEqualTo(1);
            assertThat(client.cm.idCount()).isZero();
        }
    }

    @Test
    void shouldBeRejectedWithInvalidServiceIdWhenNobodyListensOnThePort() {
        try (SimLab lab = new SimLab(3)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.listen(7000);
            List<CmEvent> events = new ArrayList<>();
            Connection c = client.cm.connectAsync(to(server, client, 7001));
            c.addEventListener(events::add);
            CmException e = failure(lab, c);
            assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
            assertThat(e.rejectReason()).isEqualTo(RejectReason.INVALID_SERVICE_ID);
            assertThat(e.getMessage()).contains("nobody listens on port 7001");
            assertThat(events).extracting(CmEvent::type).containsExactly(CmEventType.REJECTED);
            assertThat(events.get(0).previousState()).isEqualTo(CmState.REQ_SENT);
            c.close();
        }
    }

    @Test
    void shouldRefuseASecondListenerWithEaddrinuseWhenThePortIsTaken() {
        try (SimLab lab = new SimLab(4)) {
            SimLab.Host server = lab.host();
            Listener l = server.cm.listen(18515);
            assertThatThrownBy(() -> server.cm.listen(18515)).isInstanceOf(CmException.class)
                    .hasMessageContaining("port 18515").extracting(x -> ((CmException) x).errno())
                    .isEqualTo(Errno.EADDRINUSE);
            l.close();
            server.cm.listen(18515).close(); // free again
            assertThatThrownBy(() -> server.cm.listen(70000)).extracting(x -> ((CmException) x).errno())
                    .isEqualTo(Errno.EINVAL);
        }
    }

    @Test
    void shouldRejectBadOptionsWithEinvalAndCreateNothing() {
        try (SimLab lab = new SimLab(5)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            int qps = lab.qpCount(client);
            assertThatThrownBy(() -> client.cm.connectAsync(new ConnectOptions().port(1).qp(client.qp())))
                    .hasMessageContaining("no destination");
            assertThatThrownBy(() -> client.cm.connectAsync(to(server, client, 1).privateData(new byte[57])))
                    .hasMessageContaining("57 bytes, at most 56");
            assertThatThrownBy(() -> client.cm.connectAsync(to(server, client, 1).qp(new QpOptions())))
                    .hasMessageContaining("no protection domain");
            assertThatThrownBy(() -> client.cm.connectAsync(to(server, client, 1).qp(server.qp())))
                    .hasMessageContaining("belongs to");
            assertThat(lab.qpCount(client)).isEqualTo(qps);
            assertThat(client.cm.idCount()).isZero();
        }
    }

    @Test
    void shouldRetryOnTheScheduleAndTimeOutAfterMaxRetriesWhenNoAnswerComes() {
        try (SimLab lab = new SimLab(6)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.listen(1);
            lab.cut(client, server);
            List<CmEvent> sent = new ArrayList<>();
            client.cm.addEventListener(e -> {
                if (e.type() == CmEventType.REQUEST_SENT) {
                    sent.add(e);
                }
            });
            Connection c = client.cm.connectAsync(to(server, client, 1).cmResponseTimeout(12).maxCmRetries(3));
            CmException e = failure(lab, c);
            assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
            assertThat(e.retries()).isEqualTo(3);
            assertThat(e.getMessage()).contains("timed out after 3 retries of 16777 us");
            long period = 4096L << 12;
            assertThat(sent).extracting(CmEvent::attempt).containsExactly(1, 2, 3, 4);
            for (int i = 1; i < sent.size(); i++) {
                assertThat(sent.get(i).timeNanos() - sent.get(i - 1).timeNanos()).as("gap before attempt %d", i + 1)
                        .isEqualTo(period);
            }
            c.close();
            assertThat(client.cm.idCount()).isZero();
        }
    }

    @Test
    void shouldSendMraAndWaitWhenTheApplicationAnswersLate() {
        try (SimLab lab = new SimLab(7)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            Listener l = server.cm.listen(5);
            List<CmEventType> clientEvents = new ArrayList<>();
            client.cm.addEventListener(e -> clientEvents.add(e.type()));
            // 4 ms per try, two retries: without the MRA the client would give up after 12 ms
            Connection c = client.cm.connectAsync(to(server, client, 5).cmResponseTimeout(10).maxCmRetries(2));
            ConnectRequest req = lab.await("request", l.nextRequest());
            lab.fabric.runFor(50_000_000L); // the application takes 50 ms
            assertThat(c.state()).isEqualTo(CmState.MRA_REQ_RCVD);
            Connection s = req.acceptAsync(server.qp(), null);
            lab.await("established", c.established());
            lab.await("established", s.established());
            assertThat(clientEvents).contains(CmEventType.MRA_RECEIVED, CmEventType.ESTABLISHED);
        }
    }

    @Test
    void shouldDisconnectFromThePassiveSideAndFlushTheActiveSidesReceives() {
        try (SimLab lab = new SimLab(8)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.listen(9, req -> req.acceptAsync(server.qp(), null));
            Connection c = client.cm.connectAsync(to(server, client, 9));
            c.qp().postRecv(new RecvWorkRequest(1).wrId(77).sge(client.mr, 0, 64));
            lab.await("established", c.established());
            List<Connection> serverSide = new ArrayList<>();
            server.cm.addEventListener(e -> {
                if (e.type() == CmEventType.ESTABLISHED) {
                    serverSide.add(e.connection());
                }
            });
            lab.runUntil("server established", () -> !serverSide.isEmpty());
            Connection s = serverSide.get(0);
            s.disconnect(new byte[] {'b', 'y', 'e'});
            CmEvent ev = lab.await("client told", c.disconnected());
            assertThat(ev.type()).isEqualTo(CmEventType.DISCONNECTED);
            assertThat(ev.privateData()).startsWith('b', 'y', 'e');
            WorkCompletion wc = lab.poll(client.cq);
            assertThat(wc.wrId()).isEqualTo(77);
            assertThat(wc.status()).isEqualTo(WcStatus.WR_FLUSH_ERR);
            lab.await("server done", s.disconnected());
            c.close();
            s.close();
            lab.runUntil("both out of timewait", () -> client.cm.idCount() == 0 && server.cm.idCount() == 1);
        }
    }

    @Test
    void shouldConnectBothWaysWhenTwoHostsConnectToEachOtherAtOnce() {
        try (SimLab lab = new SimLab(9)) {
            SimLab.Host a = lab.host();
            SimLab.Host b = lab.host();
            a.cm.listen(100, req -> req.acceptAsync(a.qp(), null));
            b.cm.listen(100, req -> req.acceptAsync(b.qp(), null));
            Connection ab = a.cm.connectAsync(to(b, a, 100));
            Connection ba = b.cm.connectAsync(to(a, b, 100));
            List<Connection> clients = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                SimLab.Host h = i % 2 == 0 ? a : b;
                clients.add(h.cm.connectAsync(to(i % 2 == 0 ? b : a, h, 100)));
            }
            lab.await("a to b", ab.established());
            lab.await("b to a", ba.established());
            for (Connection c : clients) {
                lab.await("client", c.established());
            }
            assertThat(ab.remoteQpn()).isNotEqualTo(ba.qp().qpNum());
            assertThat(a.cm.idCount()).as("a's listener, 5 active and 5 passive IDs").isEqualTo(11);
        }
    }

    @Test
    void shouldNegotiateTheSmallerMtuWhenThePassivePortIsSmaller() {
        try (SimLab lab = new SimLab(10)) {
            SimLab.Host server = lab.host(d -> d.mtu(PathMtu.MTU_1024), c -> c);
            SimLab.Host client = lab.host(d -> d.mtu(PathMtu.MTU_4096), c -> c);
            server.cm.listen(3, req -> req.acceptAsync(server.qp(), null));
            Connection c = client.cm.connectAsync(to(server, client, 3));
            lab.await("established", c.established());
            assertThat(c.pathMtu()).isEqualTo(PathMtu.MTU_1024);
        }
    }

    @Test
    void shouldResolveAUdServiceBySidr() {
        try (SimLab lab = new SimLab(11)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            io.rvt.api.QpInitAttr init = new io.rvt.api.QpInitAttr().qpType(io.rvt.api.QpType.UD)
                    .sendCq(server.cq).recvCq(server.cq);
            init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
            io.rvt.api.QueuePair ud = server.pd.createQp(init);
            ud.modifyQp(new io.rvt.api.QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x1234),
                    io.rvt.api.QpAttrMask.mask(io.rvt.api.QpAttrMask.STATE, io.rvt.api.QpAttrMask.PKEY_INDEX,
                            io.rvt.api.QpAttrMask.PORT, io.rvt.api.QpAttrMask.QKEY));
            server.cm.listenDatagram(4000, ud, new byte[] {5});
            DatagramPeer p = lab.await("resolved", client.cm.resolveDatagramAsync(new ConnectOptions()
                    .destination(server.gid()).port(4000)));
            assertThat(p.qpn()).isEqualTo(ud.qpNum());
            assertThat(p.qkey()).isEqualTo(0x1234);
            assertThat(p.privateData()).startsWith(5);
            assertThat(p.gid()).isEqualTo(server.gid());
            Throwable t = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class, () -> lab.await(
                    "refused", client.cm.resolveDatagramAsync(new ConnectOptions().destination(server.gid())
                            .port(4001)))).getCause();
            assertThat(((CmException) t).errno()).isEqualTo(Errno.ECONNREFUSED);
            assertThat(client.cm.idCount()).isZero();
        }
    }
}
