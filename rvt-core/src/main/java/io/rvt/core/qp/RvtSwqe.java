package io.rvt.core.qp;

import io.rvt.api.AhAttr;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.DriverAh;
import io.rvt.api.spi.DriverMr;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.WrShape;
import io.rvt.api.spi.engine.SendWqe;

/**
 * One slot of a QP's send ring ({@code struct rvt_swqe}), pre-allocated with {@code max_send_sge} SGEs, so posting
 * allocates nothing. For UD-like QPs the slot also holds the {@code struct rvt_ud_wr} part: the address handle and a
 * final, per-slot {@link AhAttr} cache that post copies <em>into</em> (never replaces), so a later
 * {@code modifyAh}/{@code destroyAh} does not affect queued work.
 *
 * <p>Written by the poster under {@code postLock} before {@code sendHead} is published; read and completed by the
 * send engine under {@code sendLock} afterwards.
 */
public final class RvtSwqe implements SendWqe {
    private final Sge[] sgList;
    /** {@code ud_wr.attr}: the slot's address cache (struct rvt_ud_wr); never reassigned. */
    private final AhAttr ahAttrCache = new AhAttr();
    long wrId;
    WrOpcode opcode;
    int sendFlags;
    int numSge;
    int length;
    int psn;
    int lpsn;
    int ssn;
    Object priv;
    int immData;
    int invalidateRkey;
    long remoteAddr;
    int rkey;
    long compareAdd;
    long swap;
    int flushType;
    int flushLevel;
    int flushLength;
    DriverAh ah;
    int remoteQpn;
    int remoteQkey;
    int pkeyIndex;
    DriverMr regMr;
    int regKey;
    int regAccess;

    RvtSwqe(int maxSge) {
        sgList = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new Sge();
        }
    }

    /**
     * Copies the fields of {@code wr} that {@code shape} covers (rdmavt copies {@code rvt_operation_params.length}
     * bytes of the WR); UD-like QPs always get the UD fields.
     */
    void fill(SendWorkRequest wr, WrShape shape, boolean udLike) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        sendFlags = wr.sendFlags();
        immData = wr.immData();
        invalidateRkey = wr.invalidateRkey();
        if (opcode == io.rvt.api.WrOpcode.FLUSH) {
            flushType = wr.flushType();
            flushLevel = wr.flushLevel();
            flushLength = wr.flushLength();
        }
        switch (shape) {
            case RDMA:
                remoteAddr = wr.remoteAddr();
                rkey = wr.rkey();
                break;
            case ATOMIC:
                remoteAddr = wr.remoteAddr();
                rkey = wr.rkey();
                compareAdd = wr.compareAdd();
                swap = wr.swap();
                break;
            case REG:
                regMr = (DriverMr) wr.mr();
                regKey = wr.key();
                regAccess = wr.access();
                break;
            default:
                break;
        }
        if (udLike) {
            ah = (DriverAh) wr.ah();
            remoteQpn = wr.remoteQpn();
            remoteQkey = wr.remoteQkey();
            pkeyIndex = wr.pkeyIndex();
        }
    }

    /** The UD part of {@code rvt_put_qp_swqe}: forget the cached address (the kernel drops a GID reference). */
    void clearAh() {
        ah = null;
    }

    AhAttr ahAttrCache() {
        return ahAttrCache;
    }

    @Override
    public long wrId() {
        return wrId;
    }

    @Override
    public WrOpcode opcode() {
        return opcode;
    }

    @Override
    public void opcode(WrOpcode op) {
        this.opcode = op;
    }

    @Override
    public int sendFlags() {
        return sendFlags;
    }

    @Override
    public int numSge() {
        return numSge;
    }

    @Override
    public Sge sge(int i) {
        return sgList[i];
    }

    @Override
    public Sge[] sgList() {
        return sgList;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int psn() {
        return psn;
    }

    @Override
    public void psn(int v) {
        psn = v;
    }

    @Override
    public int lpsn() {
        return lpsn;
    }

    @Override
    public void lpsn(int v) {
        lpsn = v;
    }

    @Override
    public int ssn() {
        return ssn;
    }

    @Override
    public Object priv() {
        return priv;
    }

    @Override
    public void priv(Object p) {
        priv = p;
    }

    @Override
    public int immData() {
        return immData;
    }

    @Override
    public int invalidateRkey() {
        return invalidateRkey;
    }

    @Override
    public long remoteAddr() {
        return remoteAddr;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long compareAdd() {
        return compareAdd;
    }

    @Override
    public long swap() {
        return swap;
    }

    @Override
    public int flushType() {
        return flushType;
    }

    @Override
    public int flushLevel() {
        return flushLevel;
    }

    @Override
    public int flushLength() {
        return flushLength;
    }

    @Override
    public DriverAh ah() {
        return ah;
    }

    @Override
    public AhAttr ahAttr() {
        return ahAttrCache;
    }

    @Override
    public int remoteQpn() {
        return remoteQpn;
    }

    @Override
    public int remoteQkey() {
        return remoteQkey;
    }

    @Override
    public int pkeyIndex() {
        return pkeyIndex;
    }

    @Override
    public DriverMr regMr() {
        return regMr;
    }

    @Override
    public int regKey() {
        return regKey;
    }

    @Override
    public int regAccess() {
        return regAccess;
    }

    @Override
    public void putMrs() {
        for (int i = 0; i < numSge; i++) {
            sgList[i].release();
        }
    }

    /** {@link #putMrs} with the references handed to {@code later}, which drops them at the end of its run. */
    void putMrs(DeferredReleases later) {
        for (int i = 0; i < numSge; i++) {
            Sge s = sgList[i];
            later.add(s.mr());
            s.clear();
        }
    }

    @Override
    public String toString() {
        return "RvtSwqe{wrId=" + wrId + ", opcode=" + opcode + ", psn=" + psn + ", lpsn=" + lpsn + ", ssn=" + ssn
                + ", length=" + length + ", numSge=" + numSge + '}';
    }
}
