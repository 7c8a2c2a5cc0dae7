package io.rvt.it.interop.tools;

import io.rvt.api.AccessFlag;
import io.rvt.api.AhAttr;
import io.rvt.api.CompletionQueue;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.Gid;
import io.rvt.api.MemoryRegion;
import io.rvt.api.MemoryWindow;
import io.rvt.api.MwBind;
import io.rvt.api.MwType;
import io.rvt.api.PathMtu;
import io.rvt.api.ProtectionDomain;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcFlag;
import io.rvt.api.WcOpcode;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * rvt's side of the memory window, ATOMIC_WRITE and FLUSH interop (issue 31): drives the guest's
 * {@code mw_flush_peer} (it/interop/linux-peer/variant/mw_flush_peer.c) over its TCP command line and plays every
 * case from both ends, one RC QP each side (a fresh pair after each case that ends in an error, which leaves both QPs
 * in ERR). Usage: {@code MwFlushClient [-p TCP_PORT] [-c windows|bounds|flush|all] GUEST --bind ADDR}.
 *
 * <p>The cases, in order: the capability bits of both devices; a type 2 window rxe binds (VA-based) that rvt READs,
 * WRITEs, FETCH_AND_ADDs and CMP_AND_SWPs through, then rxe's LOCAL_INV and rvt's next READ failing with
 * REM_ACCESS_ERR; a zero-based type 2 window of rxe's; a type 1 window rxe binds and deallocates; the reverse with
 * rvt's windows: type 2 used by rxe and invalidated by rvt's LOCAL_INV, type 2 invalidated by rxe's SEND_WITH_INV
 * (rvt's receive carries the rkey), type 1 deallocated; {@code bounds}: accesses past a window but inside its region,
 * served by rxe, refused by rvt; ATOMIC_WRITE and FLUSH (range and region) from rxe to rvt and from rvt to rxe, and
 * FLUSH to persistence refused by both (REM_INV_REQ_ERR: neither QP allows it). Each side's buffer is a model here:
 * after every step the whole buffer the step touched is compared with it, byte for byte (the guest's through
 * {@code get}).
 */
public final class MwFlushClient implements Tool {
    /** The guest program's default TCP port. */
    public static final int PORT = 18600;
    private static final int LEN = 4096;
    private static final int RW = AccessFlag.mask(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
    private static final int RWA = RW | AccessFlag.REMOTE_ATOMIC.bit();
    private static final int QP_ACCESS = AccessFlag.mask(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC, AccessFlag.FLUSH_GLOBAL);
    private static final HexFormat HEX = HexFormat.of();

    private ToolContext ctx;
    private BufferedReader in;
    private PrintWriter out;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair qp;
    private CompletionWaiter waiter;
    private MemoryRegion local;
    private MemoryRegion target;
    /** What the guest's buf holds, as this side wrote it and saw it change. */
    private final byte[] guestModel = new byte[LEN];
    /** What rvt's target region holds. */
    private final byte[] targetModel = new byte[LEN];
    private final Random random = new Random(ThreadLocalRandom.current().nextLong());
    private long wrIds = 100;
    private int cases;
    private long bytesChecked;
    private int refusals;
    /** rvt's accesses past rxe's window (inside its region) that rxe served. */
    private int servedPastWindow;
    private String rxeCaps;

    /** A tool of its own (no Linux tool speaks this). */
    public MwFlushClient() {
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new MwFlushClient(), args);
    }

    @Override
    public String name() {
        return "mw_flush_peer";
    }

    @Override
    public String options() {
        return "p:c:";
    }

    @Override
    public String role(ToolArgs args) {
        return "client";
    }

    @Override
    public Map<String, String> run(ToolContext context, ToolArgs args) throws Exception {
        List<String> operands = args.operands();
        if (operands.size() != 1) {
            throw new IllegalArgumentException("mw_flush_peer: one operand, the guest's address: " + operands);
        }
        ctx = context;
        int port = args.integer('p', PORT);
        String which = args.string('c', "all");
        if (!List.of("windows", "bounds", "flush", "all").contains(which)) {
            throw new IllegalArgumentException("mw_flush_peer: -c is windows, bounds, flush or all, not '" + which
                    + "'");
        }
        pd = ctx.device().allocPd();
        cq = ctx.device().createCq(64, 0, null, null);
        waiter = new CompletionWaiter(cq, ctx);
        local = pd.regMr(ByteBuffer.allocateDirect(2 * LEN), AccessFlag.LOCAL_WRITE.bit());
        target = pd.regMr(ByteBuffer.allocateDirect(LEN), AccessFlag.mask(AccessFlag.LOCAL_WRITE,
                AccessFlag.MW_BIND, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC,
                AccessFlag.FLUSH_GLOBAL));
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(operands.get(0), port), (int) Math.max(1, ctx.remaining().toMillis()));
            s.setSoTimeout((int) Math.max(1, ctx.remaining().toMillis()));
            in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.US_ASCII);
            capabilities();
            connect();
            boolean all = which.equals("all");
            if (all || which.equals("windows")) {
                rxeTypeTwoWindow();
                rxeZeroBasedAndTypeOneWindows();
                rvtTypeTwoWindowLocallyInvalidated();
                rvtTypeTwoWindowSendWithInvalidate();
                rvtTypeOneWindow();
            }
            if (all || which.equals("bounds")) {
                rvtPastRxesWindow();
                rxePastRvtsWindow();
            }
            if (all || which.equals("flush")) {
                atomicWriteAndFlushFromRxe();
                atomicWriteAndFlushToRxe();
            }
            command("quit");
        } finally {
            if (qp != null) {
                qp.destroyQp();
            }
            target.deregMr();
            local.deregMr();
            cq.destroyCq();
            pd.deallocPd();
        }
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("cases", Integer.toString(cases));
        facts.put("refusals", Integer.toString(refusals));
        facts.put("bytes_checked", Long.toString(bytesChecked));
        facts.put("served_past_window", Integer.toString(servedPastWindow));
        facts.put("rxe_cap_flags_ex", rxeCaps);
        return facts;
    }

    // ---- the cases ----

    private void capabilities() throws ToolFailure {
        Map<String, String> caps = words(command("caps"));
        for (String bit : List.of("atomic_write", "flush_global", "mem_window", "mw_type_2")) {
            require("rxe0's " + bit, caps.get(bit), "1");
        }
        // rxe0 claims FLUSH_PERSISTENT too (rxe_param.h), though it refuses a region that is not pmem
        rxeCaps = caps.get("cap_flags_ex");
        long mine = ctx.device().queryDevice().deviceCapFlags();
        for (long bit : new long[] {DeviceAttributes.DEVICE_ATOMIC_WRITE, DeviceAttributes.DEVICE_FLUSH_GLOBAL,
            DeviceAttributes.DEVICE_MEM_WINDOW}) {
            if ((mine & bit) == 0) {
                throw new ToolFailure("rvt's device lacks capability bit 0x" + Long.toHexString(bit));
            }
        }
        ctx.say("capabilities: rxe0 " + caps + ", rvt 0x" + Long.toHexString(mine));
        cases++;
    }

    /** rxe binds a type 2 window; rvt READs, WRITEs and does both atomics through it; rxe's LOCAL_INV ends it. */
    private void rxeTypeTwoWindow() throws Exception {
        random.nextBytes(guestModel);
        command("set 0 " + HEX.formatHex(guestModel));
        String[] w = command("bind 2 100 800 rwa").split(" ");
        int rkey = (int) Long.parseLong(w[1], 16);
        long addr = Long.parseUnsignedLong(w[2], 16);
        readThrough(rkey, addr, 0x100, 0x800);
        writeThrough(rkey, addr + 0x200, 0x300, 0x200);
        atomicsThrough(rkey, addr + 0x400, 0x500);
        checkGuest();
        command("inv " + Integer.toHexString(rkey));
        expectStatus(WcStatus.REM_ACCESS_ERR, "READ through rxe's invalidated type 2 window",
                read(rkey, addr, 64));
        checkGuest();
        connect();
        cases++;
    }

    /** A zero-based type 2 window (offsets from 0) and a type 1 window (ibv_bind_mw) ended by ibv_dealloc_mw. */
    private void rxeZeroBasedAndTypeOneWindows() throws Exception {
        String[] w = command("bind 2 200 100 rw zb").split(" ");
        int rkey = (int) Long.parseLong(w[1], 16);
        require("a zero-based window's address", w[2], "0");
        writeThrough(rkey, 0x10, 0x210, 0x20);
        readThrough(rkey, 0, 0x200, 0x100);
        command("inv " + Integer.toHexString(rkey));
        checkGuest();
        w = command("bind 1 0 1000 rw").split(" ");
        int rkey1 = (int) Long.parseLong(w[1], 16);
        long addr1 = Long.parseUnsignedLong(w[2], 16);
        writeThrough(rkey1, addr1 + 8, 8, 0x40);
        readThrough(rkey1, addr1, 0, LEN);
        command("dealloc 1");
        expectStatus(WcStatus.REM_ACCESS_ERR, "WRITE through rxe's deallocated type 1 window",
                write(rkey1, addr1, 16));
        checkGuest();
        connect();
        cases++;
    }

    /** rvt binds a type 2 window; rxe READs, WRITEs and does atomics; rvt's LOCAL_INV ends it for rxe. */
    private void rvtTypeTwoWindowLocallyInvalidated() throws Exception {
        fillTarget();
        MemoryWindow mw = pd.allocMw(MwType.TYPE_2);
        try {
            int rkey = bindType2(mw, target.addr() + 0x100, 0x800, RWA);
            long addr = target.addr() + 0x100;
            guestUses(rkey, addr, 0x100, 0x800);
            post(new SendWorkRequest(0).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey), WcOpcode.LOCAL_INV);
            expectGuestError("10", "rxe's READ through rvt's locally invalidated type 2 window",
                    "read " + hex(rkey) + " " + Long.toHexString(addr) + " 40");
            checkTarget();
            connect();
            cases++;
        } finally {
            mw.deallocMw();
        }
    }

    /** rxe's SEND_WITH_INV invalidates rvt's type 2 window: rvt's receive says so; rxe's next WRITE fails. */
    private void rvtTypeTwoWindowSendWithInvalidate() throws Exception {
        MemoryWindow mw = pd.allocMw(MwType.TYPE_2);
        try {
            long addr = target.addr();
            int rkey = bindType2(mw, addr, LEN, RW);
            guestWrites(rkey, addr + 0x40, 0x40, 0x80);
            long id = ++wrIds;
            Messages.fill(local.buffer(), LEN, 64, Messages.SCRIBBLE);
            qp.postRecv(new RecvWorkRequest(1).wrId(id).sge(local, LEN, 64));
            command("sendinv " + hex(rkey));
            WorkCompletion wc = waiter.await(id, "the SEND_WITH_INV's receive");
            if ((wc.wcFlags() & WcFlag.WITH_INVALIDATE.bit()) == 0 || wc.invalidateRkey() != rkey
                    || wc.byteLen() != 8) {
                throw new ToolFailure("SEND_WITH_INV's receive: want WITH_INVALIDATE of rkey 0x" + hex(rkey)
                        + " and 8 bytes, got " + wc);
            }
            Messages.checkAll("SEND_WITH_INV's payload", local.buffer(), LEN, 8, (byte) 0x5a);
            bytesChecked += 8;
            if (mw.isBound()) {
                throw new ToolFailure("rvt's window is still bound after rxe's SEND_WITH_INV of 0x" + hex(rkey));
            }
            expectGuestError("10", "rxe's WRITE through rvt's window it invalidated",
                    "write " + hex(rkey) + " " + Long.toHexString(addr) + " " + HEX.formatHex(new byte[16]));
            checkTarget();
            connect();
            cases++;
        } finally {
            mw.deallocMw();
        }
    }

    /** rvt binds a type 1 window (bindMw); rxe uses it; after rvt's deallocMw rxe's READ fails. */
    private void rvtTypeOneWindow() throws Exception {
        MemoryWindow mw = pd.allocMw(MwType.TYPE_1);
        long addr = target.addr() + 0x800;
        MwBind b = new MwBind().wrId(++wrIds).sendFlags(SendFlag.SIGNALED.bit());
        b.bindInfo().mr(target).addr(addr).length(0x400).mwAccessFlags(RWA);
        int rkey = qp.bindMw(mw, b);
        WorkCompletion wc = waiter.await(b.wrId(), "bindMw");
        require("bindMw's completion", wc.opcode().toString(), WcOpcode.BIND_MW.toString());
        guestUses(rkey, addr, 0x800, 0x400);
        mw.deallocMw();
        expectGuestError("10", "rxe's READ through rvt's deallocated type 1 window",
                "read " + hex(rkey) + " " + Long.toHexString(addr) + " 8");
        checkTarget();
        connect();
        cases++;
    }

    /**
     * An access through rxe's window past the window's range but inside its region (IBTA C10-75: the window's bounds
     * are checked): rxe 6.12 serves rvt's READ after the window, WRITE before it and FETCH_AND_ADD after it, since its
     * responder ({@code check_rkey}) checks the range against the window's region only; each is counted in
     * {@code served_past_window}, and the bytes are the region's (checked against the model), so nothing is guessed.
     * A READ inside the window first shows the window itself works.
     */
    private void rvtPastRxesWindow() throws Exception {
        random.nextBytes(guestModel);
        command("set 0 " + HEX.formatHex(guestModel));
        String[] w = command("bind 2 400 100 rwa").split(" ");
        int rkey = (int) Long.parseLong(w[1], 16);
        long addr = Long.parseUnsignedLong(w[2], 16); // buf + 0x400, the window [0x400, 0x500)
        long region = addr - 0x400;
        readThrough(rkey, addr, 0x400, 0x100);
        readThrough(rkey, region + 0x800, 0x800, 0x40);
        servedPastWindow++;
        writeThrough(rkey, region + 0x3f8, 0x3f8, 0x10); // starts 8 bytes before the window
        servedPastWindow++;
        long add = random.nextLong();
        long old = le(guestModel, 0x600);
        long got = atomic(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(add), rkey,
                region + 0x600);
        requireLong("FETCH_AND_ADD past rxe's window: the original value", got, old);
        putLe(guestModel, 0x600, old + add);
        servedPastWindow++;
        checkGuest();
        ctx.say("rxe served " + servedPastWindow + " accesses past its window [0x400, 0x500) of rkey 0x" + hex(rkey)
                + " inside the region (its check_rkey checks the region's range only)");
        command("inv " + Integer.toHexString(rkey));
        cases++;
    }

    /**
     * The reverse: rvt keeps the window's bounds, so rxe's READ after rvt's window, WRITE straddling its end and
     * FETCH_AND_ADD before it are each NAKed (remote access error) and complete at rxe with
     * {@code IBV_WC_REM_ACCESS_ERR} (10), rvt's region unchanged. A type 1 window, which outlives the QP pairs each
     * refusal costs; rxe's READ inside it first.
     */
    private void rxePastRvtsWindow() throws Exception {
        fillTarget();
        MemoryWindow mw = pd.allocMw(MwType.TYPE_1);
        try {
            long addr = target.addr() + 0x400;
            MwBind b = new MwBind().wrId(++wrIds).sendFlags(SendFlag.SIGNALED.bit());
            b.bindInfo().mr(target).addr(addr).length(0x100).mwAccessFlags(RWA);
            int rkey = qp.bindMw(mw, b);
            waiter.await(b.wrId(), "bindMw");
            String got = command("read " + hex(rkey) + " " + Long.toHexString(addr) + " 100").substring(3);
            compare("rxe's READ inside rvt's window", HEX.parseHex(got), targetModel, 0x400);
            long region = target.addr();
            expectGuestError("10", "rxe's READ past rvt's window [0x400, 0x500), inside the region",
                    "read " + hex(rkey) + " " + Long.toHexString(region + 0x800) + " 40");
            connect();
            expectGuestError("10", "rxe's WRITE straddling the end of rvt's window",
                    "write " + hex(rkey) + " " + Long.toHexString(region + 0x4f8) + " " + HEX.formatHex(new byte[16]));
            checkTarget();
            connect();
            expectGuestError("10", "rxe's FETCH_AND_ADD before rvt's window",
                    "fadd " + hex(rkey) + " " + Long.toHexString(region + 0x300) + " 1");
            checkTarget();
            connect();
            cases++;
        } finally {
            mw.deallocMw();
        }
    }

    /** rxe's ATOMIC_WRITE and FLUSH (range, region) to rvt's region; FLUSH to persistence refused by rvt. */
    private void atomicWriteAndFlushFromRxe() throws Exception {
        byte[] v = new byte[8];
        random.nextBytes(v);
        long addr = target.addr();
        command("awrite " + hex(target.rkey()) + " " + Long.toHexString(addr + 0x18) + " " + HEX.formatHex(v));
        System.arraycopy(v, 0, targetModel, 0x18, 8);
        checkTarget();
        command("flush " + hex(target.rkey()) + " " + Long.toHexString(addr + 0x10) + " 100 g r");
        command("flush " + hex(target.rkey()) + " " + Long.toHexString(addr) + " 0 g m");
        // the QP's FLUSH placement types are checked first (rxe's check_qp_attr_access): invalid request
        expectGuestError("9", "rxe's FLUSH to persistence through rvt's QP without FLUSH_PERSISTENT",
                "flush " + hex(target.rkey()) + " " + Long.toHexString(addr) + " 100 p r");
        checkTarget();
        connect();
        cases++;
    }

    /** rvt's ATOMIC_WRITE and FLUSH to rxe's region; FLUSH to persistence refused by rxe. */
    private void atomicWriteAndFlushToRxe() throws Exception {
        String[] m = command("mr").split(" ");
        long addr = Long.parseUnsignedLong(m[1], 16);
        int rkey = (int) Long.parseLong(m[3], 16);
        byte[] v = new byte[8];
        random.nextBytes(v);
        local.buffer().put(0, v);
        post(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_WRITE).sge(local, 0, 8).remoteAddr(addr + 0x28)
                .rkey(rkey), WcOpcode.ATOMIC_WRITE);
        System.arraycopy(v, 0, guestModel, 0x28, 8);
        checkGuest();
        post(flush(rkey, addr + 0x20, 0x100), WcOpcode.FLUSH);
        post(flush(rkey, addr, 0).flushLevel(SendWorkRequest.FLUSH_MR), WcOpcode.FLUSH);
        WorkCompletion wc = postForStatus(flush(rkey, addr, 0x100).flushType(SendWorkRequest.FLUSH_PERSISTENT));
        expectStatus(WcStatus.REM_INV_REQ_ERR, "rvt's FLUSH to persistence through rxe's QP without "
                + "FLUSH_PERSISTENT", wc);
        checkGuest();
        connect();
        cases++;
    }

    // ---- steps ----

    /** (Re)creates both QPs and connects them (the guest first: it is in RTS when it answers). */
    private void connect() throws Exception {
        if (qp != null) {
            qp.destroyQp();
            qp = null;
        }
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq).sigType(SigType.SIGNAL_ALL_WR);
        init.cap().maxSendWr(16).maxRecvWr(16).maxSendSge(1).maxRecvSge(1);
        qp = pd.createQp(init);
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(QP_ACCESS),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        int psn = random.nextInt(1 << 24);
        Gid mine = ctx.device().queryGid(1, 0);
        String[] r = command("qp " + hex(qp.qpNum()) + " " + hex(psn) + " " + HEX.formatHex(mine.toBytes()))
                .split(" ");
        AhAttr av = new AhAttr().dlid(0).sl(0).srcPathBits(0).portNum(1).global(true).hopLimit(64)
                .dgid(Gid.of(HEX.parseHex(r[3]))).sgidIndex(0);
        QpAttr rtr = new QpAttr().qpState(QpState.RTR).pathMtu(PathMtu.MTU_1024)
                .destQpNum((int) Long.parseLong(r[1], 16)).rqPsn((int) Long.parseLong(r[2], 16))
                .maxDestRdAtomic(1).minRnrTimer(12);
        rtr.ahAttr().copyFrom(av);
        qp.modifyQp(rtr, QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER));
        qp.modifyQp(new QpAttr().qpState(QpState.RTS).sqPsn(psn).timeout(ctx.options().ackTimeoutOr(18))
                .retryCnt(7).rnrRetry(7).maxRdAtomic(1), QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.SQ_PSN,
                QpAttrMask.TIMEOUT, QpAttrMask.RETRY_CNT, QpAttrMask.RNR_RETRY, QpAttrMask.MAX_QP_RD_ATOMIC));
        ctx.say("connected: rvt QPN 0x" + hex(qp.qpNum()) + ", rxe QPN 0x" + r[1]);
    }

    private void readThrough(int rkey, long remote, int guestOff, int len) throws Exception {
        expectStatus(WcStatus.SUCCESS, "READ of rkey 0x" + hex(rkey), read(rkey, remote, len));
        byte[] got = new byte[len];
        local.buffer().get(0, got);
        compare("READ through rxe's rkey 0x" + hex(rkey), got, guestModel, guestOff);
    }

    private void writeThrough(int rkey, long remote, int guestOff, int len) throws Exception {
        byte[] v = new byte[len];
        random.nextBytes(v);
        local.buffer().put(0, v);
        expectStatus(WcStatus.SUCCESS, "WRITE of rkey 0x" + hex(rkey), write(rkey, remote, len));
        System.arraycopy(v, 0, guestModel, guestOff, len);
        checkGuest();
    }

    /** FETCH_AND_ADD, then a CMP_AND_SWP that matches and one that does not, at remote (guest offset off). */
    private void atomicsThrough(int rkey, long remote, int off) throws Exception {
        long add = random.nextLong();
        long old = le(guestModel, off);
        long got = atomic(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(add), rkey, remote);
        requireLong("FETCH_AND_ADD's original value", got, old);
        putLe(guestModel, off, old + add);
        long swap = random.nextLong();
        got = atomic(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).compareAdd(old + add).swap(swap),
                rkey, remote);
        requireLong("CMP_AND_SWP's original value", got, old + add);
        putLe(guestModel, off, swap);
        got = atomic(new SendWorkRequest(1).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).compareAdd(~swap).swap(0), rkey,
                remote);
        requireLong("a CMP_AND_SWP that does not match: the original value", got, swap);
        checkGuest();
    }

    private long atomic(SendWorkRequest w, int rkey, long remote) throws Exception {
        Messages.fill(local.buffer(), 0, 8, Messages.SCRIBBLE);
        WorkCompletion wc = postForStatus(w.sge(local, 0, 8).remoteAddr(remote).rkey(rkey));
        expectStatus(WcStatus.SUCCESS, w.opcode() + " of rkey 0x" + hex(rkey), wc);
        bytesChecked += 8;
        return local.buffer().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    /** rxe READs, WRITEs and does atomics through rvt's rkey over targetModel[off, off + len). */
    private void guestUses(int rkey, long addr, int off, int len) throws Exception {
        String got = command("read " + hex(rkey) + " " + Long.toHexString(addr) + " " + Integer.toHexString(len))
                .substring(3);
        compare("rxe's READ through rvt's rkey 0x" + hex(rkey), HEX.parseHex(got), targetModel, off);
        guestWrites(rkey, addr + 0x10, off + 0x10, 0x30);
        long add = random.nextLong();
        long old = le(targetModel, off + 0x40);
        String r = command("fadd " + hex(rkey) + " " + Long.toHexString(addr + 0x40) + " " + Long.toHexString(add));
        requireLong("rxe's FETCH_AND_ADD's original value", le(HEX.parseHex(r.substring(3)), 0), old);
        putLe(targetModel, off + 0x40, old + add);
        long swap = random.nextLong();
        r = command("cswap " + hex(rkey) + " " + Long.toHexString(addr + 0x40) + " " + Long.toHexString(old + add)
                + " " + Long.toHexString(swap));
        requireLong("rxe's CMP_AND_SWP's original value", le(HEX.parseHex(r.substring(3)), 0), old + add);
        putLe(targetModel, off + 0x40, swap);
        checkTarget();
    }

    private void guestWrites(int rkey, long addr, int off, int len) throws Exception {
        byte[] v = new byte[len];
        random.nextBytes(v);
        command("write " + hex(rkey) + " " + Long.toHexString(addr) + " " + HEX.formatHex(v));
        System.arraycopy(v, 0, targetModel, off, len);
        checkTarget();
    }

    private int bindType2(MemoryWindow mw, long addr, long len, int access) throws Exception {
        int key = (mw.rkey() & 0xFFFF_FF00) | ((mw.rkey() + 1) & 0xFF);
        SendWorkRequest w = new SendWorkRequest(0).opcode(WrOpcode.BIND_MW).mw(mw).key(key);
        w.bindInfo().mr(target).addr(addr).length(len).mwAccessFlags(access);
        post(w, WcOpcode.BIND_MW);
        return key;
    }

    private void fillTarget() {
        random.nextBytes(targetModel);
        target.buffer().put(0, targetModel);
    }

    private static SendWorkRequest flush(int rkey, long addr, int len) {
        return new SendWorkRequest(0).opcode(WrOpcode.FLUSH).remoteAddr(addr).rkey(rkey).flushLength(len);
    }

    private WorkCompletion read(int rkey, long remote, int len) throws Exception {
        Messages.fill(local.buffer(), 0, len, Messages.SCRIBBLE);
        return postForStatus(new SendWorkRequest(1).opcode(WrOpcode.RDMA_READ).sge(local, 0, len)
                .remoteAddr(remote).rkey(rkey));
    }

    private WorkCompletion write(int rkey, long remote, int len) throws Exception {
        return postForStatus(new SendWorkRequest(1).opcode(WrOpcode.RDMA_WRITE).sge(local, 0, len)
                .remoteAddr(remote).rkey(rkey));
    }

    private void post(SendWorkRequest w, WcOpcode want) throws Exception {
        WorkCompletion wc = postForStatus(w);
        expectStatus(WcStatus.SUCCESS, w.opcode().toString(), wc);
        require(w.opcode() + "'s completion opcode", wc.opcode().toString(), want.toString());
    }

    /** Posts w (signaled) and returns its completion, whatever its status. */
    private WorkCompletion postForStatus(SendWorkRequest w) throws Exception {
        long id = ++wrIds;
        qp.postSend(w.wrId(id).sendFlags(w.sendFlags() | SendFlag.SIGNALED.bit()));
        while (true) {
            WorkCompletion wc = new WorkCompletion();
            if (cq.pollCq(wc)) {
                if (wc.wrId() == id) {
                    return wc;
                }
                if (wc.status() != WcStatus.WR_FLUSH_ERR) {
                    throw new ToolFailure("an unexpected completion while waiting for " + w.opcode() + ": " + wc);
                }
            } else {
                ctx.checkDeadline(w.opcode() + " (wr_id " + id + ")");
                Thread.onSpinWait();
            }
        }
    }

    private void expectStatus(WcStatus want, String what, WorkCompletion wc) throws ToolFailure {
        if (wc.status() != want) {
            throw new ToolFailure(what + ": want " + want + ", got " + wc);
        }
        if (want != WcStatus.SUCCESS) {
            refusals++;
            ctx.say("refused as expected: " + what + " -> " + wc.status());
        }
    }

    private void expectGuestError(String status, String what, String line) throws ToolFailure {
        String r = send(line);
        if (!r.startsWith("ERR status=" + status + " ")) {
            throw new ToolFailure(what + ": want the guest's 'ERR status=" + status + "', got '" + r + "'");
        }
        refusals++;
        ctx.say("refused as expected: " + what + " -> " + r);
    }

    private void checkGuest() throws Exception {
        compare("the guest's region", HEX.parseHex(command("get 0 1000").substring(3)), guestModel, 0);
    }

    private void checkTarget() throws ToolFailure {
        byte[] got = new byte[LEN];
        target.buffer().get(0, got);
        compare("rvt's region", got, targetModel, 0);
    }

    private void compare(String what, byte[] got, byte[] model, int off) throws ToolFailure {
        byte[] want = Arrays.copyOfRange(model, off, off + got.length);
        int i = Arrays.mismatch(got, want);
        if (i >= 0) {
            throw new ToolFailure(what + ": byte " + i + " of " + got.length + " (model offset 0x"
                    + Integer.toHexString(off + i) + ") is 0x" + HEX.toHexDigits(got[i]) + ", want 0x"
                    + HEX.toHexDigits(want[i]));
        }
        bytesChecked += got.length;
    }

    // ---- the command line to the guest ----

    private String send(String line) throws ToolFailure {
        out.println(line);
        try {
            String r = in.readLine();
            if (r == null) {
                throw new ToolFailure("the guest closed the connection after '" + abbreviate(line) + "'");
            }
            return r;
        } catch (java.io.IOException e) {
            throw new ToolFailure("no answer from the guest to '" + abbreviate(line) + "': " + e);
        }
    }

    private String command(String line) throws ToolFailure {
        String r = send(line);
        if (!r.equals("OK") && !r.startsWith("OK ")) {
            throw new ToolFailure("the guest refused '" + abbreviate(line) + "': " + r);
        }
        return r;
    }

    private static String abbreviate(String line) {
        return line.length() > 80 ? line.substring(0, 80) + "..." : line;
    }

    private static Map<String, String> words(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : line.split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        return m;
    }

    private static void require(String what, String got, String want) throws ToolFailure {
        if (!want.equals(got)) {
            throw new ToolFailure(what + ": want " + want + ", got " + got);
        }
    }

    private void requireLong(String what, long got, long want) throws ToolFailure {
        if (got != want) {
            throw new ToolFailure(what + ": want 0x" + Long.toHexString(want) + ", got 0x" + Long.toHexString(got));
        }
        bytesChecked += 8;
    }

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    private static long le(byte[] b, int off) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(off);
    }

    private static void putLe(byte[] b, int off, long v) {
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(off, v);
    }
}
