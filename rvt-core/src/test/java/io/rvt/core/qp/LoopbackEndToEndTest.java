package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.QpType;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.mr.RvtMr;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Two RC QPs on one device, connected through rvt's software loopback ({@link LoopbackTestDriver}), exchange 10,000
 * operations of a seeded random mix: sends with and without immediate data, RDMA writes (with immediate), RDMA
 * reads, compare-and-swap and fetch-and-add, with the driver's reserved operation (OPFN) interleaved. Every byte
 * that moves is checked against a model of both QPs' memory, and every completion (and every absent one) against the
 * work requests posted.
 */
class LoopbackEndToEndTest {
    private static final long SEED = 0x5EED_2024L;
    private static final int OPS = 10_000;
    private static final int SLOT = 5120;
    private static final int SLOTS = 4;
    private static final int REGION = 16 * 1024;

    /** One QP with its memory: a source region, receive slots, a region the peer reads/writes, result slots. */
    private final class Side {
        final String name;
        final RvtQp qp;
        final boolean sigReq;
        final RvtMr src;
        final RvtMr recv;
        final RvtMr tgt;
        final RvtMr rdst;
        final byte[] shadow = new byte[REGION];
        Side peer;

        Side(String name, SigType sig) {
            this.name = name;
            this.qp = env.createOwnCqs(QpType.RC, 32, 64, 3, sig);
            this.sigReq = sig == SigType.SIGNAL_REQ_WR;
            this.src = env.reg(REGION);
            this.recv = env.reg(SLOT * SLOTS);
            this.tgt = env.reg(REGION);
            this.rdst = env.reg(SLOT * SLOTS);
        }
    }

    private record Seg(int off, int len) {
    }

    /** An operation as posted, enough to predict its effects. */
    private static final class Op {
        WrOpcode opcode;
        long wrId;
        boolean signaled;
        List<Seg> local = new ArrayList<>();
        int len;
        int remoteOff;
        int imm;
        long compareAdd;
        long swap;
        int slot;
        long recvWrId;
        List<Seg> recvSegs;
        byte recvFill;
    }

    private LoopbackTestDriver driver;
    private QpEnv env;
    private SplittableRandom r;
    private long nextWrId = 1;
    private int step;

    private String at() {
        return "seed 0x" + Long.toHexString(SEED) + ", op " + step;
    }

    private static ByteBuffer view(RvtMr mr) {
        return mr.buffer().order(ByteOrder.nativeOrder());
    }

    private static byte[] read(RvtMr mr, int off, int len) {
        byte[] b = new byte[len];
        ByteBuffer v = view(mr);
        v.position(off);
        v.get(b);
        return b;
    }

    /** Splits {@code len} into 1..3 segments placed in order, with gaps, inside [base, base + room). */
    private List<Seg> place(int len, int base, int room) {
        int n = len == 0 ? 0 : 1 + r.nextInt(Math.min(3, len));
        List<Seg> segs = new ArrayList<>();
        int slack = room - len;
        int pos = base;
        int left = len;
        for (int i = 0; i < n; i++) {
            int part = i == n - 1 ? left : 1 + r.nextInt(left - (n - 1 - i));
            int gap = slack > 0 ? r.nextInt(Math.min(slack, 64) + 1) : 0;
            slack -= gap;
            pos += gap;
            segs.add(new Seg(pos, part));
            pos += part;
            left -= part;
        }
        return segs;
    }

    /** Source segments: anywhere in the source region, random bytes written into them now. */
    private List<Seg> source(Side s, int len) {
        int n = len == 0 ? 0 : 1 + r.nextInt(Math.min(3, len));
        List<Seg> segs = new ArrayList<>();
        int left = len;
        ByteBuffer v = view(s.src);
        for (int i = 0; i < n; i++) {
            int part = i == n - 1 ? left : 1 + r.nextInt(left - (n - 1 - i));
            int off = r.nextInt(REGION - part + 1);
            for (int k = 0; k < part; k++) {
                v.put(off + k, (byte) r.nextInt());
            }
            segs.add(new Seg(off, part));
            left -= part;
        }
        return segs;
    }

    private static void sges(SendWorkRequest w, RvtMr mr, List<Seg> segs) {
        w.numSge(segs.size());
        for (int i = 0; i < segs.size(); i++) {
            w.sge(i).set(mr, segs.get(i).off(), segs.get(i).len());
        }
    }

    private int length() {
        int k = r.nextInt(20);
        return k == 0 ? 0 : k < 4 ? 1 + r.nextInt(16) : r.nextInt(4097);
    }

    private void postReceive(Side s, Op op, int len, boolean withData) {
        op.recvWrId = nextWrId++;
        op.recvFill = (byte) r.nextInt();
        ByteBuffer v = view(s.recv);
        for (int i = 0; i < SLOT; i++) {
            v.put(op.slot * SLOT + i, op.recvFill);
        }
        int cap = len + r.nextInt(65);
        op.recvSegs = withData ? place(cap, op.slot * SLOT, SLOT) : place(r.nextInt(64), op.slot * SLOT, SLOT);
        RecvWorkRequest w = new RecvWorkRequest(3).wrId(op.recvWrId).numSge(op.recvSegs.size());
        for (int i = 0; i < op.recvSegs.size(); i++) {
            w.sge(i).set(s.recv, op.recvSegs.get(i).off(), op.recvSegs.get(i).len());
        }
        s.qp.postRecv(w);
    }

    private Op build(Side s, int slot, SendWorkRequest w) {
        Op op = new Op();
        op.slot = slot;
        op.wrId = nextWrId++;
        op.signaled = r.nextBoolean();
        Side p = s.peer;
        int kind = r.nextInt(100);
        if (kind < 25) {
            op.opcode = WrOpcode.SEND;
        } else if (kind < 35) {
            op.opcode = WrOpcode.SEND_WITH_IMM;
        } else if (kind < 50) {
            op.opcode = WrOpcode.RDMA_WRITE;
        } else if (kind < 60) {
            op.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
        } else if (kind < 80) {
            op.opcode = WrOpcode.RDMA_READ;
        } else if (kind < 90) {
            op.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
        } else {
            op.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
        }
        w.opcode(op.opcode).wrId(op.wrId).sendFlags(op.signaled ? SendFlag.SIGNALED.bit() : 0);
        switch (op.opcode) {
            case SEND:
            case SEND_WITH_IMM:
                op.len = length();
                op.local = source(s, op.len);
                sges(w, s.src, op.local);
                postReceive(p, op, op.len, true);
                break;
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                op.len = length();
                op.local = source(s, op.len);
                sges(w, s.src, op.local);
                op.remoteOff = r.nextInt(REGION - op.len + 1);
                w.remoteAddr(p.tgt.addr() + op.remoteOff).rkey(p.tgt.rkey());
                if (op.opcode == WrOpcode.RDMA_WRITE_WITH_IMM) {
                    postReceive(p, op, 0, false);
                }
                break;
            case RDMA_READ:
                op.len = length();
                op.remoteOff = r.nextInt(REGION - op.len + 1);
                op.local = place(op.len, slot * SLOT, SLOT);
                sges(w, s.rdst, op.local);
                w.remoteAddr(p.tgt.addr() + op.remoteOff).rkey(p.tgt.rkey());
                break;
            default:
                op.len = 8;
                op.remoteOff = 8 * r.nextInt(REGION / 8);
                op.local = List.of(new Seg(slot * SLOT + 8 * r.nextInt(SLOT / 8), 8));
                sges(w, s.rdst, op.local);
                op.compareAdd = r.nextInt(4) == 0 ? ByteBuffer.wrap(p.shadow).order(ByteOrder.nativeOrder())
                        .getLong(op.remoteOff) : r.nextLong();
                op.swap = r.nextLong();
                w.remoteAddr(p.tgt.addr() + op.remoteOff).rkey(p.tgt.rkey()).compareAdd(op.compareAdd)
                        .swap(op.swap);
                break;
        }
        if (op.opcode == WrOpcode.SEND_WITH_IMM || op.opcode == WrOpcode.RDMA_WRITE_WITH_IMM) {
            op.imm = r.nextInt();
            w.immData(op.imm);
        }
        return op;
    }

    private static WcOpcode sendWcOpcode(WrOpcode op) {
        switch (op) {
            case SEND:
            case SEND_WITH_IMM:
                return WcOpcode.SEND;
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
                return WcOpcode.RDMA_WRITE;
            case RDMA_READ:
                return WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP:
                return WcOpcode.COMP_SWAP;
            default:
                return WcOpcode.FETCH_ADD;
        }
    }

    private byte[] concat(RvtMr mr, List<Seg> segs) {
        int n = segs.stream().mapToInt(Seg::len).sum();
        byte[] out = new byte[n];
        int pos = 0;
        for (Seg s : segs) {
            System.arraycopy(read(mr, s.off(), s.len()), 0, out, pos, s.len());
            pos += s.len();
        }
        return out;
    }

    /** Compares byte arrays, reporting the first difference only (the arrays are large). */
    private static void assertBytes(byte[] actual, byte[] expected, String what) {
        assertThat(actual.length).as("%s: length", what).isEqualTo(expected.length);
        int i = Arrays.mismatch(actual, expected);
        if (i >= 0) {
            throw new AssertionError(what + ": first difference at byte " + i + " of " + actual.length + ": expected "
                    + expected[i] + " but was " + actual[i]);
        }
    }

    /** Applies one processed operation to the model and checks every byte it touched. */
    private void verify(Side s, Op op, List<WorkCompletion> recvWcs) {
        Side p = s.peer;
        String what = at() + " " + s.name + " " + op.opcode + " wrId " + op.wrId + " len " + op.len;
        switch (op.opcode) {
            case SEND:
            case SEND_WITH_IMM: {
                byte[] data = concat(s.src, op.local);
                byte[] got = concat(p.recv, op.recvSegs);
                assertBytes(Arrays.copyOf(got, op.len), data, what + ": received bytes, segments " + op.local
                        + " -> " + op.recvSegs);
                byte[] untouched = Arrays.copyOfRange(got, op.len, got.length);
                byte[] fill = new byte[untouched.length];
                Arrays.fill(fill, op.recvFill);
                assertBytes(untouched, fill, what + ": receive buffer beyond the message");
                break;
            }
            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM: {
                byte[] data = concat(s.src, op.local);
                System.arraycopy(data, 0, p.shadow, op.remoteOff, op.len); // memory compared after the batch
                if (op.recvSegs != null) {
                    byte[] fill = new byte[SLOT];
                    Arrays.fill(fill, op.recvFill);
                    assertBytes(read(p.recv, op.slot * SLOT, SLOT), fill, what + ": RWQE buffers untouched");
                }
                break;
            }
            case RDMA_READ:
                assertBytes(concat(s.rdst, op.local), Arrays.copyOfRange(p.shadow, op.remoteOff, op.remoteOff + op.len),
                        what + ": read bytes, segments " + op.local + " from " + op.remoteOff);
                break;
            default: {
                ByteBuffer sh = ByteBuffer.wrap(p.shadow).order(ByteOrder.nativeOrder());
                long old = sh.getLong(op.remoteOff);
                if (op.opcode == WrOpcode.ATOMIC_FETCH_AND_ADD) {
                    sh.putLong(op.remoteOff, old + op.compareAdd);
                } else if (old == op.compareAdd) {
                    sh.putLong(op.remoteOff, op.swap);
                }
                assertThat(view(s.rdst).getLong(op.local.get(0).off())).as("%s: prior value", what).isEqualTo(old);
                break;
            }
        }
        if (op.recvSegs != null) {
            assertThat(recvWcs).as("%s: receive completion", what).isNotEmpty();
            WorkCompletion wc = recvWcs.remove(0);
            boolean imm = op.opcode == WrOpcode.SEND_WITH_IMM || op.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
            assertThat(wc.wrId()).as(what).isEqualTo(op.recvWrId);
            assertThat(wc.status()).as(what).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).as(what).isEqualTo(op.opcode == WrOpcode.RDMA_WRITE_WITH_IMM
                    ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV);
            assertThat(wc.byteLen()).as(what).isEqualTo(op.len);
            assertThat(wc.wcFlags()).as(what).isEqualTo(imm ? WcFlag.WITH_IMM.bit() : 0);
            assertThat(wc.immData()).as(what).isEqualTo(imm ? op.imm : 0);
            assertThat(wc.qpNum()).as(what).isEqualTo(p.qp.qpNum());
            assertThat(wc.srcQp()).as(what).isEqualTo(s.qp.qpNum());
            assertThat(wc.slid()).as(what).isEqualTo(driver.lid());
        }
    }

    @Test
    void shouldMoveEveryByteAndCompleteEveryWorkRequestWhenTwoRcQpsExchangeTenThousandMixedOperations() {
        driver = new LoopbackTestDriver();
        env = new QpEnv(driver);
        r = new SplittableRandom(SEED);
        Side a = new Side("A", SigType.SIGNAL_REQ_WR);
        Side b = new Side("B", SigType.SIGNAL_ALL_WR);
        a.peer = b;
        b.peer = a;
        env.connect(a.qp, b.qp);
        int reservedPosted = 0;
        int[] opCounts = new int[256];

        while (step < OPS) {
            Side s = r.nextBoolean() ? a : b;
            int n = r.nextInt(10) < 7 ? 1 : 2 + r.nextInt(3);
            boolean reservedFront = r.nextInt(8) == 0;
            List<SendWorkRequest> wrs = new ArrayList<>();
            List<Op> ops = new ArrayList<>();
            if (reservedFront) {
                wrs.add(new SendWorkRequest(0).opcode(LoopbackTestDriver.OPFN).wrId(nextWrId++)
                        .compareAdd(r.nextLong()).remoteAddr(0xDEAD0000L));
                reservedPosted++;
                opCounts[LoopbackTestDriver.OPFN.value()]++;
                step++;
                if (r.nextBoolean()) {
                    n = 0; // a reserved operation alone
                }
            }
            for (int j = 0; j < n && step < OPS; j++) {
                SendWorkRequest w = new SendWorkRequest(3);
                ops.add(build(s, j, w));
                opCounts[ops.get(j).opcode.value()]++;
                wrs.add(w);
                step++;
            }
            for (int i = 0; i + 1 < wrs.size(); i++) {
                wrs.get(i).next(wrs.get(i + 1));
            }
            s.qp.postSend(wrs.get(0));
            driver.drain();

            List<WorkCompletion> sendWcs = QpEnv.poll(s.qp.sendCompletionQueue());
            List<WorkCompletion> recvWcs = QpEnv.poll(s.peer.qp.recvCompletionQueue());
            List<WorkCompletion> expectedSend = new ArrayList<>();
            for (Op op : ops) {
                verify(s, op, recvWcs);
                if (!s.sigReq || op.signaled) {
                    expectedSend.add(new WorkCompletion().wrId(op.wrId).opcode(sendWcOpcode(op.opcode))
                            .byteLen(op.len).qpNum(s.qp.qpNum()));
                }
            }
            assertThat(recvWcs).as("%s: no extra receive completions", at()).isEmpty();
            // Writes and atomics of the whole batch, in order: the peer's target region equals the model.
            assertBytes(read(s.peer.tgt, 0, REGION), s.peer.shadow, at() + ": " + s.peer.name + "'s target region");
            assertThat(sendWcs).as("%s: send completions of %s", at(), s.name).hasSameSizeAs(expectedSend);
            for (int i = 0; i < sendWcs.size(); i++) {
                WorkCompletion got = sendWcs.get(i);
                WorkCompletion exp = expectedSend.get(i);
                String what = at() + " " + s.name + " send completion " + i + " " + got;
                assertThat(got.wrId()).as(what).isEqualTo(exp.wrId());
                assertThat(got.status()).as(what).isEqualTo(WcStatus.SUCCESS);
                assertThat(got.opcode()).as(what).isEqualTo(exp.opcode());
                assertThat(got.byteLen()).as(what).isEqualTo(exp.byteLen());
                assertThat(got.qpNum()).as(what).isEqualTo(exp.qpNum());
                assertThat(got.wcFlags()).as(what).isZero();
                assertThat(got.immData()).as(what).isZero();
            }
            assertThat(QpEnv.poll(s.peer.qp.sendCompletionQueue())).as(at()).isEmpty();
            assertThat(QpEnv.poll(s.qp.recvCompletionQueue())).as(at()).isEmpty();
            assertThat(s.qp.sendQueue().head()).as("%s: all processed", at()).isEqualTo(s.qp.sendQueue().last());
            assertThat(s.qp.sendQueue().reservedUsed()).as(at()).isZero();
        }

        assertBytes(read(a.tgt, 0, REGION), a.shadow, "A's target region");
        assertBytes(read(b.tgt, 0, REGION), b.shadow, "B's target region");
        assertThat(driver.reservedCompleted()).isEqualTo(reservedPosted);
        assertThat(a.qp.state()).isEqualTo(io.rvt.api.QpState.RTS);
        assertThat(b.qp.state()).isEqualTo(io.rvt.api.QpState.RTS);
        for (WrOpcode op : new WrOpcode[] {WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
            WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP,
            WrOpcode.ATOMIC_FETCH_AND_ADD, LoopbackTestDriver.OPFN}) {
            assertThat(opCounts[op.value()]).as("the mix has %s", op).isGreaterThan(300);
        }
        for (RvtMr mr : new RvtMr[] {a.src, a.recv, a.tgt, a.rdst, b.src, b.recv, b.tgt, b.rdst}) {
            assertThat(mr.refCount()).as("no region reference leaks: %s", mr).isEqualTo(a.src.refCount());
        }
    }
}
