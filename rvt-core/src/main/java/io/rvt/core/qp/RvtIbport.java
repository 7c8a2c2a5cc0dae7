package io.rvt.core.qp;

import io.rvt.api.Gid;
import io.rvt.api.PortCounter;
import io.rvt.api.spi.DriverPort;
import io.rvt.api.spi.McastGroup;
import io.rvt.core.mcast.McastTable;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A port of an rvt device ({@code struct rvt_ibport}): addressing fields the driver sets, the P_Key table, counters,
 * the port's QP0/QP1 slots and its multicast groups. Scalar fields are volatile: one writer (the driver or
 * {@code modifyPort}) at a time, read by anyone.
 */
public final class RvtIbport implements DriverPort {
    private final QpDevice device;
    private final int portNum;
    private final AtomicIntegerArray pkeys;
    /**
     * One counter per 64-byte cache line ({@link #COUNTER_STRIDE} longs apart): senders bump the TX counters while the
     * receive path bumps the RX ones, and neighbours on one line would bounce it between their cores on every packet.
     */
    private final AtomicLongArray counters = new AtomicLongArray(PortCounter.values().length * COUNTER_STRIDE);
    private static final int COUNTER_STRIDE = 8;
    /** QP0 and QP1 of this port ({@code qp[2]}); written under the QP table's lock. */
    private final AtomicReferenceArray<RvtQp> specialQps = new AtomicReferenceArray<>(2);
    private final McastTable mcast;
    private volatile int lid;
    private volatile int lmc;
    private volatile long gidPrefix = 0xFE80_0000_0000_0000L;
    private volatile int smLid;
    private volatile int smSl;
    private volatile int portCapFlags;
    private volatile int portCap3Flags;
    private volatile int subnetTimeout;
    private volatile Object priv;

    /**
     * Mirrors {@code rvt_init_port}: made by the device's registration, one per port.
     *
     * @param device the device
     * @param portNum the port, 1-based
     * @param npkeys the P_Key table's length
     * @param initialPkeys the driver's initial P_Keys, or null for none
     */
    public RvtIbport(QpDevice device, int portNum, int npkeys, int[] initialPkeys) {
        this.device = device;
        this.portNum = portNum;
        this.pkeys = new AtomicIntegerArray(Math.max(npkeys, 1));
        if (initialPkeys != null) {
            for (int i = 0; i < Math.min(initialPkeys.length, pkeys.length()); i++) {
                pkeys.set(i, initialPkeys[i] & 0xFFFF);
            }
        }
        this.mcast = new McastTable(device, portNum);
    }

    /** @return the port's multicast groups */
    public McastTable mcastTable() {
        return mcast;
    }

    /**
     * @param qpn 0 or 1
     * @param qp the special QP, or null
     */
    public void specialQp(int qpn, RvtQp qp) {
        specialQps.set(qpn, qp);
    }

    /**
     * Clears a special slot if it still holds {@code qp}.
     *
     * @param qpn 0 or 1
     * @param qp the QP
     * @return true if it was there
     */
    public boolean removeSpecialQp(int qpn, RvtQp qp) {
        return specialQps.compareAndSet(qpn, qp, null);
    }

    /**
     * {@code modify_port}'s capability mask change.
     *
     * @param set bits to set in {@code port_cap_flags}
     * @param clr bits to clear
     */
    public void changeCapFlags(int set, int clr) {
        portCapFlags = (portCapFlags | set) & ~clr;
    }

    /**
     * {@code modify_port}'s capability mask change with {@code IB_PORT_OPA_MASK_CHG}.
     *
     * @param set bits to set in {@code port_cap3_flags}
     * @param clr bits to clear
     */
    public void changeCap3Flags(int set, int clr) {
        portCap3Flags = (portCap3Flags | set) & ~clr;
    }

    /**
     * @param c the counter {@code modify_port} resets (Q_Key violations)
     */
    public void resetCounter(PortCounter c) {
        counters.set(c.ordinal() * COUNTER_STRIDE, 0);
    }

    @Override
    public int portNum() {
        return portNum;
    }

    @Override
    public int lid() {
        return lid;
    }

    @Override
    public void lid(int v) {
        lid = v;
    }

    @Override
    public int lmc() {
        return lmc;
    }

    @Override
    public void lmc(int v) {
        lmc = v;
    }

    @Override
    public long gidPrefix() {
        return gidPrefix;
    }

    @Override
    public void gidPrefix(long v) {
        gidPrefix = v;
    }

    @Override
    public int smLid() {
        return smLid;
    }

    @Override
    public void smLid(int v) {
        smLid = v;
    }

    @Override
    public int smSl() {
        return smSl;
    }

    @Override
    public void smSl(int v) {
        smSl = v;
    }

    @Override
    public int portCapFlags() {
        return portCapFlags;
    }

    @Override
    public void portCapFlags(int v) {
        portCapFlags = v;
    }

    @Override
    public int portCap3Flags() {
        return portCap3Flags;
    }

    @Override
    public int subnetTimeout() {
        return subnetTimeout;
    }

    @Override
    public void subnetTimeout(int v) {
        subnetTimeout = v;
    }

    @Override
    public int pkey(int index) {
        return index >= 0 && index < pkeys.length() ? pkeys.get(index) : 0;
    }

    @Override
    public void pkey(int index, int pkey) {
        if (index < 0 || index >= pkeys.length()) {
            throw new IllegalArgumentException("pkey index " + index + " outside the table of " + pkeys.length());
        }
        pkeys.set(index, pkey & 0xFFFF);
    }

    @Override
    public long counter(PortCounter c) {
        return counters.get(c.ordinal() * COUNTER_STRIDE);
    }

    @Override
    public void addCounter(PortCounter c, long delta) {
        counters.getAndAdd(c.ordinal() * COUNTER_STRIDE, delta);
    }

    @Override
    public RvtQp specialQp(int qpn) {
        return specialQps.get(qpn);
    }

    @Override
    public McastGroup mcastFind(Gid mgid, int mlid) {
        return mcast.find(mgid, mlid);
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
    public QpDevice device() {
        return device;
    }
}
