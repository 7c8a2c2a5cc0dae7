package io.rvt.cm.impl;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.spi.TimerService;
import io.rvt.cm.CmConfig;
import io.rvt.cm.ConnectOptions;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import io.rvt.cm.RejectReason;
import io.rvt.cm.SimLab;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a listener holds: at most the backlog of unanswered requests under a flood of REQs from spoofed sources, while
 * genuine clients still get through; an unanswered request no longer than the hold's cap, whatever its REQ asks; and
 * no request whose IP CM header rdma_cm would refuse.
 */
class CmBacklogTest {
    private static final int PORT = 7;
    private static final byte[] GENUINE = {'o', 'k'};

    private static long counter(SimLab.Host h, String name) {
        return h.cm.counters().get(name);
    }

    private static ListenerImpl listenerOf(SimLab.Host h) {
        return ((CmHandle) h.cm).engineRef().listeners.get(io.rvt.cm.ConnectionManager.serviceId(PORT));
    }

    /**
     * The server's application: it answers the oldest request it holds every {@code periodNanos} of virtual time,
     * accepting the genuine ones (private data "ok") and rejecting the rest, as a server that checks its clients does.
     */
    private static final class Application {
        final List<Connection> accepted = new ArrayList<>();
        int rejected;
        private final SimLab.Host server;
        private final Listener listener;
        private final TimerService timers;
        private final long periodNanos;

        Application(SimLab lab, SimLab.Host server, Listener listener, long periodNanos) {
            this.server = server;
            this.listener = listener;
            this.timers = lab.fabric.timerService();
            this.periodNanos = periodNanos;
            next();
        }

        private void next() {
            listener.nextRequest().thenAccept(r -> timers.newTimer("app", () -> answer(r)).arm(periodNanos));
        }

        private void answer(ConnectRequest r) {
            if (Arrays.equals(Arrays.copyOf(r.privateData(), GENUINE.length), GENUINE)) {
                accepted.add(r.acceptAsync(server.qp(), null));
            } else {
                r.reject(null);
                rejected++;
            }
            next();
        }
    }

    /** Sends the {@code i}th spoofed REQ and waits until the server has it (a GSI QP has 64 receives posted). */
    private static void spoof(SimLab lab, List<RawGsi> spoofers, SimLab.Host server, int i) {
        RawGsi from = spoofers.get(i % spoofers.size());
        long before = counter(server, "mads_received");
        from.send(lab, server.gid(), CmWireTest.req(from, server.gid(), 0x1000 + i, 0x100 + (i & 0xFFFF), PORT));
        lab.runUntil("REQ " + i + " arrives", () -> counter(server, "mads_received") > before);
    }

    @Test
    void shouldHoldAtMostTheBacklogUnderAFloodAndLetGenuineClientsConnectDuringAndAfterIt() {
        try (SimLab lab = new SimLab(41)) {
            SimLab.Host server = lab.host();
            SimLab.Host during = lab.host();
            SimLab.Host after = lab.host();
            Listener l = server.cm.listen(PORT);
            ListenerImpl held = listenerOf(server);
            List<RawGsi> spoofers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                spoofers.add(new RawGsi(lab.bareDevice()));
            }
            // 5,000 REQs from five spoofed sources while the application takes none
            int most = 0;
            Connection genuine = null;
            for (int i = 0; i < 5000; i++) {
                spoof(lab, spoofers, server, i);
                most = Math.max(most, held.unanswered);
                if (i == 1500) {
                    genuine = during.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(PORT)
                            .qp(during.qp()).privateData(GENUINE));
                }
            }
            assertThat(most).as("requests held at once").isEqualTo(CmConfig.DEFAULT_LISTEN_BACKLOG);
            assertThat(server.cm.idCount()).isEqualTo(1 + CmConfig.DEFAULT_LISTEN_BACKLOG);
            assertThat(counter(server, "dropped_backlog_full")).as("dropped unanswered, as rdma_ucm does")
                    .isGreaterThanOrEqualTo(5001 - CmConfig.DEFAULT_LISTEN_BACKLOG);
            // the application answers one request every 0.1 ms while the flood goes on at one REQ a millisecond
            Application app = new Application(lab, server, l, 100_000L);
            int connectedAt = -1;
            for (int i = 5000; i < 7000; i++) {
                spoof(lab, spoofers, server, i);
                lab.fabric.runFor(1_000_000L);
                most = Math.max(most, held.unanswered);
                if (connectedAt < 0 && genuine.established().isDone()) {
                    connectedAt = i;
                }
            }
            assertThat(connectedAt).as("the genuine client connected while the flood went on").isPositive();
            assertThat(genuine.established()).isCompleted();
            assertThat(most).isEqualTo(CmConfig.DEFAULT_LISTEN_BACKLOG);
            Connection late = after.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(PORT)
                    .qp(after.qp()).privateData(GENUINE));
            lab.await("a client after the flood", late.established());
            assertThat(app.accepted).hasSize(2);
            assertThat(app.rejected).isGreaterThan(CmConfig.DEFAULT_LISTEN_BACKLOG);
        }
    }

    @Test
    void shouldRejectARequestHeldUnansweredAfterTheCapWhateverItsTimeoutsAsk() {
        try (SimLab lab = new SimLab(42)) {
            SimLab.Host server = lab.host();
            server.cm.listen(PORT); // an application that never takes its requests
            RawGsi peer = new RawGsi(lab.bareDevice());
            CmMad req = CmWireTest.req(peer, server.gid(), 0x7777, 0x55, PORT);
            req.remoteCmResponseTimeout = 31; // 16 x (2^31 + 2^24) x 4.096 us: 39 hours, if believed
            req.localCmResponseTimeout = 31;
            req.maxCmRetries = 15;
            long start = lab.fabric.nanoTime();
            peer.send(lab, server.gid(), req);
            CmMad rej = peer.receive(lab);
            long held = lab.fabric.nanoTime() - start;
            assertThat(rej.attrId).isEqualTo(CmMad.REJ);
            assertThat(rej.reason).isEqualTo(RejectReason.TIMEOUT.code());
            assertThat(rej.remoteCommId).isEqualTo(0x7777);
            assertThat(rej.ariLength).as("ib_cm finds the ID by the rejecter's CA GUID").isEqualTo(8);
            assertThat(held).isBetween(CmConfig.DEFAULT_MAX_REQUEST_HOLD.toNanos(),
                    CmConfig.DEFAULT_MAX_REQUEST_HOLD.toNanos() + 1_000_000_000L);
            assertThat(server.cm.idCount()).as("the listener only").isEqualTo(1);
            assertThat(counter(server, "reqs_expired")).isEqualTo(1);
            assertThat(listenerOf(server).unanswered).isZero();
        }
    }

    /**
     * The cap counts from the peer's latest copy of its REQ: a genuine client that keeps retrying (each copy answered
     * with our MRA) outlives a slow application, even one slower than the cap; on a virtual clock that runs ahead of
     * the application by whole timeouts this is what keeps the launcher's deterministic runs connecting.
     */
    @Test
    void shouldKeepARequestWhosePeerStillRetriesBeyondTheCap() {
        try (SimLab lab = new SimLab(44)) {
            // a 3 s cap; our MRA asks for 2^18 x 4.096 us (1.07 s) more, so the client, which retries after 1.07 s
            // (code 18), sends a copy every 2.1 s once it has the MRA: within the cap
            SimLab.Host server = lab.host(d -> d, c -> c.maxRequestHold(java.time.Duration.ofSeconds(3))
                    .serviceTimeout(18));
            SimLab.Host client = lab.host(d -> d, c -> c.cmResponseTimeout(18).maxCmRetries(15));
            Listener l = server.cm.listen(PORT);
            TimerService timers = lab.fabric.timerService();
            long start = lab.fabric.nanoTime();
            long[] answeredAt = {0};
            l.nextRequest().thenAccept(r -> timers.newTimer("slow application", () -> {
                answeredAt[0] = lab.fabric.nanoTime();
                r.acceptAsync(server.qp(), null);
            }).arm(10_000_000_000L)); // 10 s: over three times the cap
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(PORT)
                    .qp(client.qp()));
            lab.await("established after the slow answer", c.established());
            assertThat(answeredAt[0] - start).isGreaterThanOrEqualTo(10_000_000_000L);
            assertThat(counter(server, "reqs_expired")).isZero();
        }
    }

    @Test
    void shouldFreeTheBacklogPlaceOfARequestItsPeerWithdraws() {
        try (SimLab lab = new SimLab(43)) {
            SimLab.Host server = lab.host(d -> d, c -> c.listenBacklog(1));
            SimLab.Host client = lab.host();
            Listener l = server.cm.listen(PORT);
            RawGsi peer = new RawGsi(lab.bareDevice());
            peer.send(lab, server.gid(), CmWireTest.req(peer, server.gid(), 0x31, 0x41, PORT));
            lab.runUntil("held", () -> listenerOf(server).unanswered == 1);
            // the peer gives up: a REJ TIMEOUT of its REQ, naming only its own ID (ib_cm's, with its CA GUID)
            CmMad rej = new CmMad();
            rej.attrId = CmMad.REJ;
            rej.localCommId = 0x31;
            rej.messageCode = CmMad.MSG_REQ;
            rej.reason = RejectReason.TIMEOUT.code();
            rej.ariLength = 8;
            peer.send(lab, server.gid(), rej);
            lab.runUntil("withdrawn", () -> listenerOf(server).unanswered == 0);
            assertThat(server.cm.idCount()).isEqualTo(1);
            Connection c = client.cm.connectAsync(new ConnectOptions().destination(server.gid()).port(PORT)
                    .qp(client.qp()));
            ConnectRequest r = lab.await("the next request", l.nextRequest());
            assertThat(r.remoteGid()).isEqualTo(client.gid());
            r.acceptAsync(server.qp(), null);
            lab.await("established", c.established());
        }
    }

    @Test
    void shouldRefuseARequestWhoseIpCmHeaderRdmaCmWouldRefuse() {
        try (SimLab lab = new SimLab(44)) {
            SimLab.Host server = lab.host();
            List<ConnectRequest> got = new ArrayList<>();
            server.cm.listen(PORT, got::add);
            RawGsi peer = new RawGsi(lab.bareDevice());
            int n = 0;
            for (int[] bad : new int[][] {{0x10, 0x40}, {0, 0x00}, {0, 0x50}, {1, 0x60}}) {
                CmMad req = CmWireTest.req(peer, server.gid(), 0x900 + n, 0x90 + n, PORT);
                req.privateData[0] = (byte) bad[0]; // cma_hdr's version
                req.privateData[1] = (byte) bad[1]; // its IP version, upper nibble
                peer.send(lab, server.gid(), req);
                CmMad rej = peer.receive(lab);
                assertThat(rej.attrId).as("header %02x %02x", bad[0], bad[1]).isEqualTo(CmMad.REJ);
                assertThat(rej.reason).isEqualTo(RejectReason.CONSUMER_DEFINED.code());
                assertThat(rej.messageCode).isEqualTo(CmMad.MSG_REQ);
                assertThat(rej.remoteCommId).isEqualTo(0x900 + n);
                n++;
            }
            assertThat(got).as("no request reached the application").isEmpty();
            assertThat(server.cm.idCount()).isEqualTo(1);
            assertThat(counter(server, "reqs_refused_ip_header")).isEqualTo(4);
            peer.send(lab, server.gid(), CmWireTest.req(peer, server.gid(), 0x999, 0x99, PORT));
            lab.runUntil("a well-formed request reaches it", () -> got.size() == 1);
        }
    }

    @Test
    void shouldRefuseAServiceIdResolutionWhoseIpCmHeaderIsMalformed() {
        try (SimLab lab = new SimLab(45)) {
            SimLab.Host server = lab.host();
            io.rvt.api.QpInitAttr init = new io.rvt.api.QpInitAttr().qpType(io.rvt.api.QpType.UD)
                    .sendCq(server.cq).recvCq(server.cq);
            init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
            server.cm.listenDatagram(PORT, server.pd.createQp(init), null);
            RawGsi peer = new RawGsi(lab.bareDevice());
            CmMad sidr = new CmMad();
            sidr.attrId = CmMad.SIDR_REQ;
            sidr.localCommId = 0x66;
            sidr.serviceId = io.rvt.cm.ConnectionManager.datagramServiceId(PORT); // RDMA_PS_UDP
            sidr.pkey = 0xFFFF;
            byte[] hdr = new byte[IpCmHeader.LENGTH];
            IpCmHeader.write(hdr, peer.gid(), server.gid(), 4000);
            hdr[1] = 0x30;
            sidr.privateData(hdr, 0, hdr.length);
            peer.send(lab, server.gid(), sidr);
            CmMad rep = peer.receive(lab);
            assertThat(rep.attrId).isEqualTo(CmMad.SIDR_REP);
            assertThat(rep.sidrStatus).as("IB_SIDR_REJECT").isEqualTo(2);
            assertThat(counter(server, "reqs_refused_ip_header")).isEqualTo(1);
        }
    }
}
