package io.rvt.cm.impl;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Errno;
import io.rvt.api.PortAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WrOpcode;
import io.rvt.cm.CmException;
import io.rvt.cm.CmState;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.Connection;
import io.rvt.cm.ConnectionManager;
import io.rvt.cm.RejectReason;
import io.rvt.cm.SimLab;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * MADs that name a connection without being its peer's: REJ, MRA, RTU, DREQ and DREP with one communication ID
 * right (sent from the peer's own GSI QP), with both right from a stranger's GID, or from a QP that is not a GSI QP,
 * change nothing and are counted; and the IDs a stranger would have to guess are not predictable.
 */
class CmSpoofTest {
    private static final int PORT = 5;

    /** An established connection between two CMs, and the server's side of it. */
    private record Pair(SimLab lab, SimLab.Host server, SimLab.Host client, Connection c, Connection s) {
        static Pair connect(long seed) {
            SimLab lab = new SimLab(seed);
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            List<Connection> accepted = new ArrayList<>();
            server.cm.listen(PORT, r -> accepted.add(r.acceptAsync(server.qp(), null)));
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(PORT)
                    .qp(client.qp()));
            lab.await("established", c.established());
            lab.await("server established", accepted.get(0).established());
            return new Pair(lab, server, client, c, accepted.get(0));
        }

        void assertUp() {
            assertThat(c.state()).isEqualTo(CmState.ESTABLISHED);
            assertThat(s.state()).isEqualTo(CmState.ESTABLISHED);
            c.qp().postSend(new SendWorkRequest(1).wrId(9).opcode(WrOpcode.RDMA_WRITE).sge(client.mr, 0, 8)
                    .remoteAddr(server.mr.addr()).rkey(server.mr.rkey()));
            assertThat(lab.poll(client.cq).status()).as("the connection still carries traffic")
                    .isEqualTo(WcStatus.SUCCESS);
        }
    }

    private static CmEngine engine(SimLab.Host h) {
        return ((CmHandle) h.cm).engineRef();
    }

    private static long counter(SimLab.Host h, String name) {
        return h.cm.counters().get(name);
    }

    private static CmMad mad(int attr, int localCommId, int remoteCommId) {
        CmMad m = new CmMad();
        m.attrId = attr;
        m.tid = 0x5151;
        m.localCommId = localCommId;
        m.remoteCommId = remoteCommId;
        return m;
    }

    private static CmMad rej(int localCommId, int remoteCommId, int what) {
        CmMad m = mad(CmMad.REJ, localCommId, remoteCommId);
        m.messageCode = what;
        m.reason = RejectReason.CONSUMER_DEFINED.code();
        return m;
    }

    private static CmMad dreq(int localCommId, int remoteCommId, int remoteQpn) {
        CmMad m = mad(CmMad.DREQ, localCommId, remoteCommId);
        m.remoteQpn = remoteQpn;
        return m;
    }

    private static CmMad mra(int localCommId, int remoteCommId, int what, int serviceTimeout) {
        CmMad m = mad(CmMad.MRA, localCommId, remoteCommId);
        m.messageCode = what;
        m.serviceTimeout = serviceTimeout;
        return m;
    }

    /** Sends {@code m} from the GSI QP of {@code from}'s own CM, the right GID and QPN, and waits until it came. */
    private static void sendFrom(SimLab lab, SimLab.Host from, SimLab.Host to, CmMad m) {
        CmEngine e = engine(from);
        long before = counter(to, "mads_received");
        synchronized (e) {
            e.send(e.gsi.port(1), to.gid(), to.device.queryPort(1, new PortAttr()).lid(), m);
        }
        lab.runUntil("the MAD arrives", () -> counter(to, "mads_received") > before);
    }

    /** Sends {@code m} from a stranger's GSI QP and waits until it came. */
    private static void sendFrom(SimLab lab, RawGsi stranger, SimLab.Host to, CmMad m) {
        long before = counter(to, "mads_received");
        stranger.send(lab, to.gid(), m);
        lab.runUntil("the MAD arrives", () -> counter(to, "mads_received") > before);
    }

    @Test
    void shouldKeepAConnectionUpWhenItsPeerSendsRejAndDreqWithOneIdWrong() {
        Pair p = Pair.connect(31);
        try (SimLab lab = p.lab) {
            int cId = p.c.localCommId();
            int sId = p.s.localCommId();
            int wrong = cId ^ 0x10;
            // to the server, from the client's own GSI QP: the server's ID right, the client's wrong
            sendFrom(lab, p.client, p.server, rej(wrong, sId, CmMad.MSG_OTHER));
            sendFrom(lab, p.client, p.server, rej(wrong, sId, CmMad.MSG_REP));
            sendFrom(lab, p.client, p.server, rej(cId, sId, CmMad.MSG_REQ)); // a REJ of a REQ: the server knows cId
            sendFrom(lab, p.client, p.server, dreq(wrong, sId, p.s.qp().qpNum()));
            sendFrom(lab, p.client, p.server, dreq(cId, sId, p.s.qp().qpNum() ^ 1)); // another QP of the server
            // to the client, from the server's: the client's ID right, the server's wrong
            sendFrom(lab, p.server, p.client, rej(sId ^ 0x10, cId, CmMad.MSG_OTHER));
            sendFrom(lab, p.server, p.client, rej(sId, cId, CmMad.MSG_REQ)); // the client has the server's ID
            sendFrom(lab, p.server, p.client, dreq(sId ^ 0x10, cId, p.c.qp().qpNum()));
            sendFrom(lab, p.server, p.client, mad(CmMad.DREP, sId ^ 0x10, cId));
            p.assertUp();
            // and each side dropped the DREP that answered the other's DREQ with one ID wrong (ib_cm's
            // cm_issue_drep), which names one ID wrong in turn
            assertThat(counter(p.server, "dropped_no_such_id")).isEqualTo(5 + 1);
            assertThat(counter(p.client, "dropped_no_such_id")).isEqualTo(4 + 1);
            assertThat(counter(p.server, "mads_dropped")).isEqualTo(5 + 1);
        }
    }

    @Test
    void shouldKeepAConnectionUpAndAnswerNothingWhenAStrangerSendsEveryMessageWithBothIdsRight() {
        Pair p = Pair.connect(32);
        try (SimLab lab = p.lab) {
            RawGsi stranger = new RawGsi(lab.bareDevice());
            int cId = p.c.localCommId();
            int sId = p.s.localCommId();
            sendFrom(lab, stranger, p.server, rej(cId, sId, CmMad.MSG_OTHER));
            sendFrom(lab, stranger, p.server, dreq(cId, sId, p.s.qp().qpNum()));
            sendFrom(lab, stranger, p.server, mad(CmMad.RTU, cId, sId));
            sendFrom(lab, stranger, p.server, mad(CmMad.DREP, cId, sId));
            sendFrom(lab, stranger, p.server, mra(cId, sId, CmMad.MSG_REP, 31));
            sendFrom(lab, stranger, p.client, rej(sId, cId, CmMad.MSG_REP));
            sendFrom(lab, stranger, p.client, dreq(sId, cId, p.c.qp().qpNum()));
            sendFrom(lab, stranger, p.client, mad(CmMad.DREP, sId, cId));
            assertThat(stranger.anyWithin(lab, 1_000_000_000L)).as("no DREP to the stranger's DREQs").isFalse();
            p.assertUp();
            assertThat(counter(p.server, "dropped_foreign_source")).isEqualTo(5);
            assertThat(counter(p.client, "dropped_foreign_source")).isEqualTo(3);
        }
    }

    @Test
    void shouldDropCmMadsFromAQpThatIsNotAGsiQp() {
        Pair p = Pair.connect(33);
        try (SimLab lab = p.lab) {
            // a UD QP on the client's own device, given the GSI Q_Key: the right GID, both IDs right
            QpInitAttr init = new QpInitAttr().qpType(QpType.UD).sendCq(p.client.cq).recvCq(p.client.cq);
            init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
            QueuePair ud = p.client.pd.createQp(init);
            ud.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(ConnectionManager.GSI_QKEY),
                    QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.QKEY));
            ud.modifyQp(new QpAttr().qpState(QpState.RTR), QpAttrMask.STATE.bit());
            ud.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(0), QpAttrMask.mask(QpAttrMask.STATE,
                    QpAttrMask.SQ_PSN));
            rej(p.c.localCommId(), p.s.localCommId(), CmMad.MSG_OTHER).encode(p.client.buf, 0);
            long before = counter(p.server, "mads_received");
            ud.postSend(new SendWorkRequest(1).wrId(1).opcode(WrOpcode.SEND).sge(p.client.mr, 0, CmMad.SIZE)
                    .ah(p.client.pd.createAh(new io.rvt.api.AhAttr().portNum(1).global(true).dgid(p.server.gid())
                            .dlid(p.server.device.queryPort(1, new PortAttr()).lid()).hopLimit(64)))
                    .remoteQpn(1).remoteQkey(ConnectionManager.GSI_QKEY));
            lab.runUntil("the MAD arrives", () -> counter(p.server, "mads_received") > before);
            assertThat(counter(p.server, "dropped_not_from_gsi")).isEqualTo(1);
            p.assertUp();
        }
    }

    @Test
    void shouldNotStretchAPendingConnectWhenAStrangerSendsAnMra() {
        try (SimLab lab = new SimLab(34)) {
            SimLab.Host server = lab.host();
            SimLab.Host client = lab.host();
            server.cm.listen(PORT);
            lab.cut(client, server);
            RawGsi stranger = new RawGsi(lab.bareDevice());
            long start = lab.fabric.nanoTime();
            // 16.8 ms per try, 3 retries: ETIMEDOUT after 4 tries, 67 ms
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(PORT)
                    .qp(client.qp()).cmResponseTimeout(12).maxCmRetries(3));
            // service timeout 31: 2^31 x 4.096 us, 2.4 hours more, if it were believed; and a REJ of the REQ
            sendFrom(lab, stranger, client, mra(0x1234, c.localCommId(), CmMad.MSG_REQ, 31));
            sendFrom(lab, stranger, client, rej(0x1234, c.localCommId(), CmMad.MSG_REQ));
            assertThat(c.state()).isEqualTo(CmState.REQ_SENT);
            lab.runUntil("the attempt ends", () -> c.established().isDone());
            CmException e = (CmException) org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    () -> c.established().join()).getCause();
            assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT);
            assertThat(lab.fabric.nanoTime() - start).as("on the REQ's own schedule").isLessThan(5 * (4096L << 12));
            assertThat(counter(client, "dropped_foreign_source")).isEqualTo(2);
            c.close();
        }
    }

    @Test
    void shouldNotEstablishAReplyWhenAStrangerSendsTheRtu() {
        try (SimLab lab = new SimLab(35)) {
            SimLab.Host server = lab.host();
            List<Connection> accepted = new ArrayList<>();
            server.cm.listen(PORT, r -> accepted.add(r.acceptAsync(server.qp(), null)));
            RawGsi peer = new RawGsi(lab.bareDevice());
            RawGsi stranger = new RawGsi(lab.bareDevice());
            peer.send(lab, server.gid(), CmWireTest.req(peer, server.gid(), 0x4242, 0x99, PORT));
            CmMad rep = peer.receive(lab);
            assertThat(rep.attrId).isEqualTo(CmMad.REP);
            sendFrom(lab, stranger, server, mad(CmMad.RTU, 0x4242, rep.localCommId));
            assertThat(accepted.get(0).state()).as("not established by a stranger").isEqualTo(CmState.REP_SENT);
            long before = counter(server, "mads_received");
            peer.send(lab, server.gid(), mad(CmMad.RTU, 0x4242 ^ 1, rep.localCommId)); // the peer, one ID wrong
            lab.runUntil("the MAD arrives", () -> counter(server, "mads_received") > before);
            assertThat(accepted.get(0).state()).isEqualTo(CmState.REP_SENT);
            peer.send(lab, server.gid(), mad(CmMad.RTU, 0x4242, rep.localCommId));
            lab.await("established by its peer", accepted.get(0).established());
            assertThat(counter(server, "dropped_foreign_source")).isEqualTo(1);
            assertThat(counter(server, "dropped_no_such_id")).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepWaitingForTheDrepWhenAStrangerSendsOne() {
        Pair p = Pair.connect(36);
        try (SimLab lab = p.lab) {
            RawGsi stranger = new RawGsi(lab.bareDevice());
            lab.cut(p.client, p.server);
            p.c.disconnect();
            assertThat(p.c.state()).isEqualTo(CmState.DREQ_SENT);
            sendFrom(lab, stranger, p.client, mad(CmMad.DREP, p.s.localCommId(), p.c.localCommId()));
            assertThat(p.c.state()).isEqualTo(CmState.DREQ_SENT);
            assertThat(counter(p.client, "dropped_foreign_source")).isEqualTo(1);
        }
    }

    @Test
    void shouldGiveSuccessiveConnectionsLocalIdsThatAreNeitherConsecutiveNorRepeated() {
        Pair p = Pair.connect(37);
        try (SimLab lab = p.lab) {
            List<Integer> ids = new ArrayList<>();
            ids.add(p.c.localCommId());
            for (int i = 0; i < 63; i++) {
                Connection c = p.client.cm.connectAsync(new ConnectOptions().destination(p.server.gid()).port(PORT)
                        .qp(p.client.qp()));
                lab.await("established", c.established());
                ids.add(c.localCommId());
            }
            Set<Integer> distinct = new HashSet<>(ids);
            assertThat(distinct).hasSize(64).doesNotContain(0);
            for (int i = 1; i < ids.size(); i++) {
                long gap = Math.abs((long) ids.get(i) - ids.get(i - 1));
                assertThat(gap).as("IDs %d and %d: %08x, %08x", i - 1, i, ids.get(i - 1), ids.get(i))
                        .isGreaterThan(1L << 16);
                assertThat(Integer.bitCount(ids.get(i) ^ ids.get(i - 1))).as("bits apart").isGreaterThan(4);
            }
        }
    }

    @Test
    void shouldPermuteEveryIndexToADistinctIdUnderAKeyAndSkipZeroAndLiveIds() {
        CommIdAllocator a = new CommIdAllocator(new long[] {0x1234_5678_9ABC_DEF0L, 0x0FED_CBA9_8765_4321L}, 0);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 1 << 18; i++) {
            assertThat(seen.add(a.permute(i))).as("index %d", i).isTrue();
        }
        CommIdAllocator b = new CommIdAllocator(new long[] {1, 2}, 0);
        assertThat(b.permute(5)).isNotEqualTo(a.permute(5));
        int first = a.permute(7);
        CommIdAllocator c = new CommIdAllocator(new long[] {0x1234_5678_9ABC_DEF0L, 0x0FED_CBA9_8765_4321L}, 7);
        assertThat(c.next(id -> id == first)).as("a live ID is skipped").isEqualTo(a.permute(8));
    }
}
