package io.rvt.driver.jni;

import io.rvt.api.Device;
import io.rvt.api.PathMtu;
import io.rvt.api.PortCounter;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.Connection;
import io.rvt.cm.Listener;
import io.rvt.core.RvtDevice;
import io.rvt.testkit.Endpoint;
import io.rvt.testkit.Verbs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The child JVM of {@link NetnsRcIT}: one HCA on a namespace's veth address, UDP port 4791, one RC QP. As
 * {@code server} it listens on CM port {@value #CM_PORT} and prints {@code QPN listening ...}, as {@code client} it
 * prints {@code QPN connecting}; each waits for a line on stdin, then the client connects through rvt-cm and the
 * server accepts (the CM over the veth, under the test's faults too). The server prints {@code READY} once its
 * receives are posted, receives {@code count} messages
 * and checks each (sequence number in order, pattern) and prints {@code RECEIVED <count> <crc32>}, or as
 * {@code client} sends them in windows and prints {@code SENT <count> <crc32>}.
 *
 * <p>Then the server posts one more receive, prints {@code EXPECTS <qpn> <psn> <rkey> <addr>} (what an intruder
 * needs to know) and
 * answers each {@code probe <n>} on stdin, once {@code n} packets were dropped as {@code RX_ADDR_MISMATCH}, with
 * {@code DROPPED <count> PSN unchanged} (or {@code moved to <psn>}), failing if anything was delivered. As
 * {@code intruder} it reads {@code QPN <qpn> <psn> <rkey> <addr>}, sends {@code count} in-window RDMA WRITEs once
 * each and prints
 * {@code INJECTED <count>}.
 *
 * <p>Arguments: {@code server|client|intruder <local-ip> <peer-ip> <count> [<path-mtu>]}: the largest path MTU the
 * connection may use in bytes (default 1024: the veth is a 1500-byte Ethernet), or {@code active} for none, so that
 * the CM agrees on the ports' active MTUs; the server prints {@code PATH_MTU <bytes>} once connected.
 */
public final class NetnsPeer {
    static final int SLOT = 8192;
    static final int WINDOW = 32;
    /** The CM port the server listens on. */
    static final int CM_PORT = 18515;

    private NetnsPeer() {
    }

    /**
     * @param args role, local address, peer address, message count
     * @throws Exception on any failure (the parent reads the exit status and stderr)
     */
    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        String local = args[1];
        int count = Integer.parseInt(args[3]);
        PathMtu mtu = args.length < 5 ? PathMtu.MTU_1024
                : args[4].equals("active") ? null : PathMtu.ofBytes(Integer.parseInt(args[4]));
        JniDriver driver = JniDriver.builder().name(args[0]).address(local).build();
        RvtDevice dev = RvtDevice.register(driver);
        try {
            run(server, args[0].equals("intruder"), dev, count, args[2], mtu);
        } finally {
            dev.unregister();
        }
    }

    private static void run(boolean server, boolean intruder, Device dev, int count, String peerIp, PathMtu mtu)
            throws Exception {
        // Only the waiting helpers are used: a fixture with no devices of its own serves them.
        // ACK timeout 17: 0.54 s per try, 4.3 s for the 7 retries. With the default 14 (67 ms, 0.54 s in all) the client
        // ended in RETRY_EXC_ERR on its third SEND at a load of 30-40: its peer, a JVM just started, had answered none
        // of 16 resends for 2.2 s (9 timeouts; 21 packets sent, 5 received). Losses mid-stream are resent on a
        // sequence NAK, so only a lost tail waits for the longer timer.
        Verbs verbs = new Verbs(new JniFixture(0, "127.0.0.1")).localAckTimeout(17);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (intruder) {
            // an attacker does not ask the CM: it builds its QP by hand from what it learnt of the server's
            Endpoint self = verbs.endpoint(dev, QpType.RC, WINDOW * SLOT);
            System.out.println("QPN " + self.qp.qpNum() + " " + self.initialPsn);
            System.out.flush();
            String[] peer = in.readLine().trim().split(" ");
            inject(verbs, self, Integer.parseInt(peer[1]), Integer.parseInt(peer[2]), Integer.parseInt(peer[3]),
                    Long.parseLong(peer[4]), peerIp, count);
            in.readLine(); // the parent's go-ahead: it has read the counters meanwhile
            return;
        }
        // server and client connect through rvt-cm: the server listens, the client connects once told to
        // the server listens before it says so: a REQ that came first would be rejected (no one listens)
        CmPeers cm = new CmPeers(verbs, dev);
        Listener listener = server ? cm.listen(CM_PORT) : null;
        System.out.println(server ? "QPN listening on CM port " + CM_PORT : "QPN connecting");
        System.out.flush();
        in.readLine();
        Endpoint self = server
                ? cm.accept(listener, QpType.RC, WINDOW * SLOT, mtu)
                : cm.connect(QpType.RC, WINDOW * SLOT, Peer.gidOf(parse(peerIp)), CM_PORT, mtu);
        CRC32 crc = new CRC32();
        WorkCompletion wc = new WorkCompletion();
        if (server) {
            System.out.println("PATH_MTU " + ((Connection) self.connection).pathMtu().bytes());
            for (int i = 0; i < WINDOW && i < count; i++) {
                self.qp.postRecv(new RecvWorkRequest(1).wrId(i).sge(self.mr, (i % WINDOW) * SLOT, SLOT));
            }
            // Receives posted (a SEND that came first got an RNR NAK and is retried: RNR retries are unlimited)
            System.out.println("READY");
            System.out.flush();
            for (int i = 0; i < count; i++) {
                WorkCompletion r = verbs.await(self.recvCq, 1).get(0);
                if (r.status() != WcStatus.SUCCESS || r.wrId() != i) {
                    throw new AssertionError("receive " + i + ": " + r);
                }
                int off = (i % WINDOW) * SLOT;
                int seq = self.buffer.getInt(off);
                if (seq != i || r.byteLen() != length(i)) {
                    throw new AssertionError("message " + i + " out of order or resized: seq " + seq + ", "
                            + r.byteLen() + " bytes");
                }
                Verbs.assertPattern(self.buffer, off + 4, length(i) - 4, i);
                update(crc, self.buffer, off, length(i));
                if (i + WINDOW < count) {
                    self.qp.postRecv(new RecvWorkRequest(1).wrId(i + WINDOW).sge(self.mr, off, SLOT));
                }
            }
            verbs.assertQuiet(self.recvCq, 1000);
            System.out.println("RECEIVED " + count + " " + crc.getValue());
            // What an intruder needs to know to inject in-window: the QPN and the PSN this QP expects next.
            QpAttr now = new QpAttr();
            self.qp.queryQp(now);
            self.qp.postRecv(new RecvWorkRequest(1).wrId(-1).sge(self.mr, 0, SLOT));
            System.out.println("EXPECTS " + self.qp.qpNum() + " " + now.rqPsn() + " " + self.mr.rkey() + " "
                    + self.mr.addr());
            System.out.flush();
            String cmd;
            while ((cmd = in.readLine()) != null && cmd.startsWith("probe ")) {
                long n = Long.parseLong(cmd.substring("probe ".length()).trim());
                verbs.awaitTrue(n + " packets counted as rx_addr_mismatch (rx_packets "
                        + dev.portCounter(1, PortCounter.RX_PACKETS) + ", rx_malformed "
                        + dev.portCounter(1, PortCounter.RX_MALFORMED) + " before)",
                        () -> dev.portCounter(1, PortCounter.RX_ADDR_MISMATCH) >= n);
                if (self.recvCq.pollCq(wc)) {
                    throw new AssertionError("an injected packet was delivered: " + wc);
                }
                QpAttr after = new QpAttr();
                self.qp.queryQp(after);
                System.out.println("DROPPED " + dev.portCounter(1, PortCounter.RX_ADDR_MISMATCH) + " PSN "
                        + (after.rqPsn() == now.rqPsn() ? "unchanged" : "moved to " + after.rqPsn()));
                System.out.flush();
            }
            return;
        } else {
            int posted = 0;
            int done = 0;
            long lastDone = System.nanoTime();
            SendWorkRequest wr = new SendWorkRequest(1);
            while (done < count) {
                while (posted < count && posted - done < WINDOW) {
                    int off = (posted % WINDOW) * SLOT;
                    self.buffer.putInt(off, posted);
                    Verbs.fill(self.buffer, off + 4, length(posted) - 4, posted);
                    update(crc, self.buffer, off, length(posted));
                    self.qp.postSend(wr.wrId(posted).opcode(WrOpcode.SEND).sge(self.mr, off, length(posted)));
                    posted++;
                }
                if (self.sendCq.pollCq(wc)) {
                    if (wc.status() != WcStatus.SUCCESS || wc.wrId() != done) {
                        throw new AssertionError("send " + done + ": " + wc + ", " + (System.nanoTime() - lastDone)
                                / 1_000_000 + " ms after the previous completion; " + Verbs.nonZeroCounters(dev));
                    }
                    lastDone = System.nanoTime();
                    done++;
                } else {
                    Thread.onSpinWait();
                }
            }
            System.out.println("SENT " + count + " " + crc.getValue());
        }
        System.out.flush();
        // Wait for the parent's go-ahead so that the last ACKs are not lost with a vanishing peer.
        in.readLine();
    }

    static int length(int i) {
        return 4 + (int) Math.floorMod(i * 2654435761L, (long) SLOT - 4);
    }

    private static void update(CRC32 crc, ByteBuffer buf, int off, int len) {
        for (int k = 0; k < len; k++) {
            crc.update(buf.get(off + k));
        }
    }

    /**
     * The intruder: an RC QP that sends {@code count} one-packet RDMA WRITEs (no SEND credits needed, so all go out
     * at once) to the server's region at the PSNs it expects, without retries (each injected packet goes out once),
     * then prints {@code INJECTED <packets sent>} when every WQE completed (in error: no ACK comes back).
     */
    private static void inject(Verbs verbs, Endpoint self, int qpn, int psn, int rkey, long addr, String peerIp,
            int count) throws Exception {
        connect(self, qpn, peerIp, 0, psn, 0);
        Verbs.fill(self.buffer, 0, 256, 0xE71L);
        for (int i = 0; i < count; i++) {
            self.qp.postSend(new SendWorkRequest(1).wrId(i).opcode(WrOpcode.RDMA_WRITE).sge(self.mr, 0, 256)
                    .remoteAddr(addr + 256L * i).rkey(rkey));
        }
        verbs.await(self.sendCq, count);
        System.out.println("INJECTED " + self.device.portCounter(1, PortCounter.TX_PACKETS));
        System.out.flush();
    }

    /** The intruder's hand-made QP: RESET-INIT-RTR-RTS aimed at the server's QP, PSNs as it guessed them. */
    private static void connect(Endpoint self, int peerQpn, String peerIp, int rqPsn, int sqPsn, int retries) {
        self.qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(Endpoint.ALL_ACCESS),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr a = new QpAttr().qpState(QpState.RTR).pathMtu(PathMtu.MTU_1024).destQpNum(peerQpn)
                .rqPsn(rqPsn).maxDestRdAtomic(4).minRnrTimer(1);
        a.ahAttr().clear().portNum(1).dgid(Peer.gidOf(parse(peerIp))).sgidIndex(0).hopLimit(64);
        self.qp.modifyQp(a, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        // timeout 14: about 67 ms per try (robust on a busy machine); retries 7, RNR retries forever
        self.qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(sqPsn).timeout(14).retryCnt(retries).rnrRetry(7)
                .maxRdAtomic(4), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN, QpAttrMask.TIMEOUT,
                        QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    private static java.net.InetAddress parse(String ip) {
        try {
            return java.net.InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("peer address '" + ip + "'", e);
        }
    }
}
