package io.rvt.launcher;

import io.rvt.api.AccessFlag;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceRegistry;
import io.rvt.api.MemoryRegion;
import io.rvt.api.PortAttr;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.Rvt;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The {@code rvt} command. Until the OSGi launcher lands it runs on the plain class path: two simulated HCAs are
 * found with {@code Rvt.open()} (driver-sim's no-argument {@code SimDriver}, on the real-time fabric "rvt").
 *
 * <pre>
 * rvt                     devices, then a ping-pong
 * rvt devices [-v]        like ibv_devinfo
 * rvt pingpong [-n N] [-s BYTES]   like ibv_rc_pingpong, between the two HCAs
 * </pre>
 * Exit codes: 0 success, 1 failure, 2 bad usage. {@code --debug} prints stack traces.
 */
public final class Main {
    private final PrintStream out;
    private boolean debug;

    Main(PrintStream out) {
        this.out = out;
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(new Main(System.out).run(args));
    }

    /**
     * Runs a command.
     *
     * @param args the command line
     * @return the exit code
     */
    int run(String[] args) {
        String cmd = "default";
        int iters = 1000;
        int size = 4096;
        boolean verbose = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--debug":
                        debug = true;
                        break;
                    case "-v":
                        verbose = true;
                        break;
                    case "-n":
                        iters = positive("-n", value(args, ++i, a));
                        break;
                    case "-s":
                        size = positive("-s", value(args, ++i, a));
                        break;
                    case "devices":
                    case "pingpong":
                        cmd = a;
                        break;
                    default:
                        throw new UsageException("unknown command or option '" + a + "' (try: devices, pingpong)");
                }
            }
            if (size > 1 << 24) {
                throw new UsageException("size " + size + " is too large (at most 16777216 bytes)");
            }
            try (DeviceRegistry r0 = Rvt.open(); DeviceRegistry r1 = Rvt.open()) {
                if (r0.devices().isEmpty() || r1.devices().isEmpty()) {
                    throw new IllegalStateException("no RDMA device found (is driver-sim on the class path?)");
                }
                Device a = r0.devices().get(0);
                Device b = r1.devices().get(0);
                if (!cmd.equals("pingpong")) {
                    devices(a, verbose);
                    devices(b, verbose);
                }
                if (!cmd.equals("devices")) {
                    pingpong(a, b, iters, size);
                }
            }
            return 0;
        } catch (UsageException e) {
            System.err.println("rvt: " + e.getMessage());
            return 2;
        } catch (RuntimeException e) {
            System.err.println("rvt: " + e.getMessage());
            if (debug) {
                e.printStackTrace();
            }
            return 1;
        }
    }

    private static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new UsageException("option " + option + " needs a value");
        }
        return args[i];
    }

    private static int positive(String option, String v) {
        try {
            int n = Integer.parseInt(v);
            if (n <= 0) {
                throw new UsageException("option " + option + " must be positive, got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("option " + option + " needs a number, got '" + v + "'");
        }
    }

    private void devices(Device d, boolean verbose) {
        DeviceAttributes a = d.queryDevice();
        out.printf("hca_id:\t%s%n", d.name());
        out.printf("\ttransport:\t\t\tInfiniBand (simulated by %s)%n", d.driverName());
        out.printf("\tnode_guid:\t\t\t%s%n", guid(a.nodeGuid()));
        out.printf("\tsys_image_guid:\t\t\t%s%n", guid(a.sysImageGuid()));
        out.printf("\tvendor_id:\t\t\t0x%04x%n", a.vendorId());
        out.printf("\tvendor_part_id:\t\t\t%d%n", a.vendorPartId());
        out.printf("\thw_ver:\t\t\t\t0x%X%n", a.hwVer());
        out.printf("\tphys_port_cnt:\t\t\t%d%n", d.portCount());
        if (verbose) {
            out.printf("\tmax_qp:\t\t\t\t%d%n", a.maxQp());
            out.printf("\tmax_qp_wr:\t\t\t%d%n", a.maxQpWr());
            out.printf("\tmax_sge:\t\t\t%d%n", a.maxSendSge());
            out.printf("\tmax_cq:\t\t\t\t%d%n", a.maxCq());
            out.printf("\tmax_cqe:\t\t\t%d%n", a.maxCqe());
            out.printf("\tmax_mr:\t\t\t\t%d%n", a.maxMr());
            out.printf("\tmax_pd:\t\t\t\t%d%n", a.maxPd());
            out.printf("\tmax_qp_rd_atom:\t\t\t%d%n", a.maxQpRdAtom());
            out.printf("\tmax_srq:\t\t\t%d%n", a.maxSrq());
            out.printf("\tmax_mcast_grp:\t\t\t%d%n", a.maxMcastGrp());
        }
        for (int p = 1; p <= d.portCount(); p++) {
            PortAttr pa = d.queryPort(p, new PortAttr());
            out.printf("\t\tport:\t%d%n", p);
            out.printf("\t\t\tstate:\t\t\tPORT_%s (%d)%n", pa.state(), pa.state().value());
            out.printf("\t\t\tmax_mtu:\t\t%d (%d)%n", pa.maxMtu().bytes(), pa.maxMtu().value());
            out.printf("\t\t\tactive_mtu:\t\t%d (%d)%n", pa.activeMtu().bytes(), pa.activeMtu().value());
            out.printf("\t\t\tsm_lid:\t\t\t%d%n", pa.smLid());
            out.printf("\t\t\tport_lid:\t\t%d%n", pa.lid());
            out.printf("\t\t\tGID[0]:\t\t\t%s%n", d.queryGid(p, 0));
            out.printf("\t\t\tlink_layer:\t\tInfiniBand%n");
        }
        out.println();
    }

    private static String guid(long g) {
        return String.format(Locale.ROOT, "%04x:%04x:%04x:%04x", (g >>> 48) & 0xFFFF, (g >>> 32) & 0xFFFF,
                (g >>> 16) & 0xFFFF, g & 0xFFFF);
    }

    /** One side of the ping-pong. */
    private static final class Side {
        final Device dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final ByteBuffer buf;
        final MemoryRegion mr;

        Side(Device dev, int size) {
            this.dev = dev;
            pd = dev.allocPd();
            cq = dev.createCq(16, 0, null, null);
            QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq);
            init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
            qp = pd.createQp(init);
            buf = ByteBuffer.allocateDirect(size);
            mr = pd.regMr(buf, AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
        }

        int lid() {
            return dev.queryPort(1, new PortAttr()).lid();
        }
    }

    private static void connect(Side self, Side peer) {
        int acc = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
        self.qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(acc),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(self.dev.queryPort(1, new PortAttr()).activeMtu())
                .destQpNum(peer.qp.qpNum()).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(12);
        rtr.ahAttr().dlid(peer.lid()).portNum(1);
        self.qp.modifyQp(rtr, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
                QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        self.qp.modifyQp(new QpAttr().qpState(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0)
                .maxRdAtomic(1), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT,
                QpAttrMask.RNR_RETRY, QpAttrMask.SQ_PSN, QpAttrMask.MAX_QP_RD_ATOMIC));
    }

    private static void await(CompletionQueue cq, WorkCompletion wc, long deadline) {
        while (!cq.pollCq(wc)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for a completion");
            }
            Thread.onSpinWait();
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("work request failed: " + wc.status());
        }
    }

    private void pingpong(Device da, Device db, int iters, int size) {
        Side a = new Side(da, size);
        Side b = new Side(db, size);
        connect(a, b);
        connect(b, a);
        out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x000000 (%s)%n", a.lid(), a.qp.qpNum(), da.name());
        out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x000000 (%s)%n", b.lid(), b.qp.qpNum(), db.name());
        SendWorkRequest sa = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(a.mr, 0, size);
        SendWorkRequest sb = new SendWorkRequest(1).opcode(WrOpcode.SEND).sge(b.mr, 0, size);
        RecvWorkRequest ra = new RecvWorkRequest(1).sge(a.mr, 0, size);
        RecvWorkRequest rb = new RecvWorkRequest(1).sge(b.mr, 0, size);
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + 60_000_000_000L;
        long start = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            int stamp = i * 0x9E3779B1;
            a.buf.putInt(0, stamp);
            a.buf.putInt(size - 4 > 0 ? size - 4 : 0, ~stamp);
            b.qp.postRecv(rb);
            a.qp.postRecv(ra);
            a.qp.postSend(sa);
            await(b.cq, wc, deadline);
            await(a.cq, wc, deadline);
            if (b.buf.getInt(0) != stamp || (size >= 8 && b.buf.getInt(size - 4) != ~stamp)) {
                throw new IllegalStateException("data corruption detected at iteration " + i);
            }
            b.buf.putInt(0, ~stamp);
            b.qp.postSend(sb);
            await(a.cq, wc, deadline);
            await(b.cq, wc, deadline);
            if (a.buf.getInt(0) != ~stamp) {
                throw new IllegalStateException("data corruption detected on the way back at iteration " + i);
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        long bytes = 2L * iters * size;
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, secs, bytes * 8 / secs / 1e6);
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", iters, secs, secs * 1e6 / iters);
        out.println("(measured on a simulated device: driver-sim, real-time fabric)");
    }
}
