package io.rvt.core.qp;

import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.ENOMEM;

import io.rvt.api.QpType;
import io.rvt.api.spi.DriverParams;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * rdmavt's QPN allocator ({@code struct rvt_qpn_table}, {@code alloc_qpn}, {@code rvt_free_qpn}): a bitmap of the
 * 2^24 QP numbers in lazily allocated pages of {@value #BITS_PER_PAGE} bits, a {@code last} cursor and an increment
 * {@code qpn_inc << qos_shift}. Allocation steps from the last QPN handed out, within a page first, then page by page,
 * flipping bit 0 when it wraps, exactly as rdmavt does; the reserved range {@code [qpn_res_start, qpn_res_end]} is
 * marked used from the start.
 *
 * <p>QP0/QP1 are per port. rdmavt sets a per-port bit when one is created and never clears it ([quirk]: each special
 * QP can be created once per device lifetime); rvt clears it when the special QP is destroyed, as the semantics
 * document recommends.
 */
public final class QpnTable {
    /** {@code RVT_BITS_PER_PAGE}: QPNs per bitmap page. */
    public static final int BITS_PER_PAGE = 32768;
    /** {@code RVT_QPNMAP_ENTRIES}: bitmap pages. */
    public static final int MAP_ENTRIES = (1 << 24) / BITS_PER_PAGE;
    /** {@code RVT_AIP_QP_BASE}: netdev QPs are numbered from here. */
    public static final int AIP_QP_BASE = 0x810000;
    /** {@code RVT_AIP_QPN_MAX}. */
    public static final int AIP_QPN_MAX = 1 << 16;
    private static final int QPN_MAX = 1 << 24;
    private static final int WORDS_PER_PAGE = BITS_PER_PAGE / 64;

    private final AtomicReferenceArray<AtomicLongArray> pages = new AtomicReferenceArray<>(MAP_ENTRIES);
    private final int incr;
    private int last;
    private int nmaps;
    /** QP0/QP1 per port: bit {@code q + 2 * (port - 1)}; guarded by {@code this}. */
    private long specialFlags;

    /**
     * Builds the table as {@code rvt_driver_qp_init} does ({@code init_qpn_table}).
     *
     * @param params the validated driver parameters
     */
    public QpnTable(DriverParams params) {
        this.last = params.qpnStart();
        this.incr = params.qpnInc() << params.qosShift();
        // As init_qpn_table: nmaps starts at the reserved range's page and grows each time marking the range
        // runs off the end of a page (with the default 0/0 range this reserves QPN 0's bit, a [quirk]).
        this.nmaps = params.qpnResStart() / BITS_PER_PAGE;
        int offset = params.qpnResStart() % BITS_PER_PAGE;
        int mapIndex = nmaps;
        for (long qpn = params.qpnResStart(); qpn <= params.qpnResEnd(); qpn++) {
            setBit(page(mapIndex), offset);
            if (++offset == BITS_PER_PAGE) {
                nmaps++;
                mapIndex++;
                offset = 0;
            }
        }
        reserveSpecialNumbers();
    }

    /**
     * QPN 0 and 1 are each port's SMI and GSI QPs, which live outside the bitmap. rdmavt's scan can hand out QPN 1
     * to an ordinary QP when {@code qpn_start == 0} and the increment is 1, and that QP then takes the port's QP1
     * slot ([quirk]); rvt marks both numbers used from the start so the scan never returns them.
     */
    private void reserveSpecialNumbers() {
        AtomicLongArray first = page(0);
        setBit(first, 0);
        setBit(first, 1);
    }

    /** @return the allocation increment ({@code qpn_inc << qos_shift}) */
    public int increment() {
        return incr;
    }

    private AtomicLongArray page(int index) {
        AtomicLongArray p = pages.get(index);
        if (p == null) {
            pages.compareAndSet(index, null, new AtomicLongArray(WORDS_PER_PAGE));
            p = pages.get(index);
        }
        return p;
    }

    private static boolean setBit(AtomicLongArray page, int bit) {
        int w = bit >>> 6;
        long mask = 1L << (bit & 63);
        while (true) {
            long old = page.get(w);
            if ((old & mask) != 0) {
                return false;
            }
            if (page.compareAndSet(w, old, old | mask)) {
                return true;
            }
        }
    }

    /**
     * @param qpn a QP number
     * @return true if its bit is set
     */
    public boolean isUsed(int qpn) {
        AtomicLongArray p = pages.get((qpn & 0xFFFFFF) / BITS_PER_PAGE);
        int bit = qpn % BITS_PER_PAGE;
        return p != null && (p.get(bit >>> 6) & (1L << (bit & 63))) != 0;
    }

    /**
     * Allocates a QP number (rdmavt's {@code alloc_qpn} without the driver override).
     *
     * @param type the QP type
     * @param portNum the port (SMI and GSI)
     * @param aip a netdev ("AIP") QP, numbered below 2^16 (before {@link #AIP_QP_BASE} is ORed in)
     * @return the QPN, {@code -EINVAL} if the port's special QP exists, {@code -ENOMEM} when numbers run out
     */
    public synchronized int alloc(QpType type, int portNum, boolean aip) {
        if (type == QpType.SMI || type == QpType.GSI) {
            int q = type == QpType.GSI ? 1 : 0;
            long bit = 1L << (q + 2 * (portNum - 1));
            if ((specialFlags & bit) != 0) {
                return -EINVAL.value();
            }
            specialFlags |= bit;
            return q;
        }
        int maxQpn = aip ? AIP_QPN_MAX : QPN_MAX;
        int qpn = last + incr;
        if (qpn >= maxQpn) {
            qpn = incr | ((last & 1) ^ 1);
        }
        int offset = qpn % BITS_PER_PAGE;
        int mapIndex = qpn / BITS_PER_PAGE;
        int maxScan = nmaps - (offset == 0 ? 1 : 0);
        for (int i = 0;;) {
            AtomicLongArray map = page(mapIndex);
            do {
                if (setBit(map, offset)) {
                    last = qpn;
                    return qpn;
                }
                offset += incr;
                // This qpn might be bogus if offset >= BITS_PER_PAGE; that is OK: it is not used below then.
                qpn = mapIndex * BITS_PER_PAGE + offset;
            } while (offset < BITS_PER_PAGE && qpn < QPN_MAX);
            if (++i > maxScan) {
                if (nmaps == MAP_ENTRIES) {
                    return -ENOMEM.value();
                }
                mapIndex = nmaps++;
                offset = incr | (offset & 1);
            } else if (mapIndex < nmaps && mapIndex + 1 < MAP_ENTRIES) {
                mapIndex++;
                offset = incr | (offset & 1);
            } else {
                mapIndex = 0;
                offset = incr | ((offset & 1) ^ 1);
            }
            qpn = mapIndex * BITS_PER_PAGE + offset;
        }
    }

    /**
     * Frees a QP number ({@code rvt_free_qpn}); for QP0/QP1 also clears the port's special bit (rvt's fix of the
     * never-cleared quirk).
     *
     * @param qpn the QP number (an AIP number keeps only its low 16 bits)
     * @param type the QP's type
     * @param portNum the QP's port (SMI and GSI)
     */
    public synchronized void free(int qpn, QpType type, int portNum) {
        if (type == QpType.SMI || type == QpType.GSI) {
            specialFlags &= ~(1L << ((type == QpType.GSI ? 1 : 0) + 2 * (portNum - 1)));
            return;
        }
        if ((qpn & 0xFF0000) == AIP_QP_BASE) {
            qpn &= 0xFFFF;
        }
        qpn &= 0xFFFFFF;
        AtomicLongArray p = pages.get(qpn / BITS_PER_PAGE);
        if (p != null) {
            int bit = qpn % BITS_PER_PAGE;
            int w = bit >>> 6;
            long mask = 1L << (bit & 63);
            while (true) {
                long old = p.get(w);
                if (p.compareAndSet(w, old, old & ~mask)) {
                    break;
                }
            }
        }
    }
}
