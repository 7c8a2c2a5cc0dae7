package io.rvt.core.qp;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The device's QP table ({@code struct rvt_qp_ibdev} and the ports' {@code qp[2]}): QP0/QP1 live in their port,
 * every other QP in a hash bucket chosen by {@code hash_32(qpn, bits)}, newest first, as in rdmavt.
 *
 * <p>rdmavt's readers use RCU. Here each bucket is an immutable array replaced under the table lock, so a lookup is a
 * volatile read and an array walk, lock-free and allocation-free; {@link #lookupAndRetain} takes a reference only if
 * the QP still holds its table reference (count above zero), which gives the find-and-retain atomicity RCU gave.
 */
public final class RvtQpTable {
    private static final RvtQp[] EMPTY = new RvtQp[0];
    private static final int GOLDEN_RATIO_32 = 0x61C88647;

    private final QpDevice device;
    private final int bits;
    private final AtomicReferenceArray<RvtQp[]> buckets;

    /**
     * @param device the device
     * @param size {@code qp_table_size}; buckets above the largest power of two at or below it stay unused, as in
     *             rdmavt
     */
    public RvtQpTable(QpDevice device, int size) {
        this.device = device;
        this.bits = 31 - Integer.numberOfLeadingZeros(size);
        this.buckets = new AtomicReferenceArray<>(size);
        for (int i = 0; i < size; i++) {
            buckets.set(i, EMPTY);
        }
    }

    /**
     * {@code hash_32(qpn, qp_table_bits)}.
     *
     * @param qpn a QP number
     * @return its bucket
     */
    public int bucket(int qpn) {
        return bits == 0 ? 0 : (qpn * GOLDEN_RATIO_32) >>> (32 - bits);
    }

    /**
     * Mirrors {@code rvt_insert_qp}: takes the table reference and publishes the QP (on RESET to INIT).
     *
     * @param qp the QP
     */
    public void insert(RvtQp qp) {
        qp.retain();
        synchronized (this) {
            int n = qp.qpNum();
            if (n <= 1) {
                qp.iport().specialQp(n, qp);
            } else {
                int b = bucket(n);
                RvtQp[] old = buckets.get(b);
                RvtQp[] grown = new RvtQp[old.length + 1];
                grown[0] = qp;
                System.arraycopy(old, 0, grown, 1, old.length);
                buckets.set(b, grown);
            }
        }
    }

    /**
     * Mirrors {@code rvt_remove_qp}: unpublishes the QP and drops the table reference if it was there.
     *
     * @param qp the QP
     * @return true if it was in the table
     */
    public boolean remove(RvtQp qp) {
        boolean removed = false;
        synchronized (this) {
            int n = qp.qpNum();
            if (n <= 1) {
                RvtIbport port = qp.iport();
                removed = port != null && port.removeSpecialQp(n, qp);
            } else {
                int b = bucket(n);
                RvtQp[] old = buckets.get(b);
                for (int i = 0; i < old.length; i++) {
                    if (old[i] == qp) {
                        RvtQp[] shrunk = new RvtQp[old.length - 1];
                        System.arraycopy(old, 0, shrunk, 0, i);
                        System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                        buckets.set(b, shrunk.length == 0 ? EMPTY : shrunk);
                        removed = true;
                        break;
                    }
                }
            }
        }
        if (removed) {
            qp.release();
        }
        return removed;
    }

    /**
     * Mirrors {@code rvt_lookup_qpn} (no reference taken).
     *
     * @param port the port (for QP0/QP1)
     * @param qpn the QP number
     * @return the QP or null
     */
    public RvtQp lookup(RvtIbport port, int qpn) {
        if (qpn <= 1) {
            return qpn >= 0 && port != null ? port.specialQp(qpn) : null;
        }
        for (RvtQp qp : buckets.get(bucket(qpn))) {
            if (qp.qpNum() == qpn) {
                return qp;
            }
        }
        return null;
    }

    /**
     * Looks a QP up and takes a reference, unless it is being removed.
     *
     * @param port the port (for QP0/QP1)
     * @param qpn the QP number
     * @return the retained QP or null
     */
    public RvtQp lookupAndRetain(RvtIbport port, int qpn) {
        RvtQp qp = lookup(port, qpn);
        return qp != null && qp.tryRetain() ? qp : null;
    }

    /**
     * Visits every QP in the table (specials port by port, then buckets) without taking references.
     *
     * @param visitor called per QP
     */
    public void forEach(Consumer<RvtQp> visitor) {
        RvtQpIter it = iter();
        while (it.next()) {
            visitor.accept(it.qp());
        }
    }

    /**
     * Mirrors {@code rvt_qp_iter}: visits every QP holding a reference during the call.
     *
     * @param visitor called per QP
     */
    public void forEachRetained(Consumer<RvtQp> visitor) {
        RvtQpIter it = iter();
        while (it.next()) {
            RvtQp qp = it.qp();
            if (qp.tryRetain()) {
                try {
                    visitor.accept(qp);
                } finally {
                    qp.release();
                }
            }
        }
    }

    /** @return the number of QPs in the table */
    public int size() {
        int[] n = {0};
        forEach(qp -> n[0]++);
        return n[0];
    }

    /** @return a new cursor ({@code rvt_qp_iter_init}) */
    public RvtQpIter iter() {
        return new RvtQpIter(device, this);
    }

    RvtQp[] bucketAt(int index) {
        return buckets.get(index);
    }

    int bucketCount() {
        return buckets.length();
    }
}
