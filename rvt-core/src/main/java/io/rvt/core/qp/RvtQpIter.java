package io.rvt.core.qp;

import io.rvt.api.spi.QpIter;

/**
 * A cursor over a device's QPs ({@code struct rvt_qp_iter}): for each port its QP0 then QP1, then the hash buckets in
 * order. rdmavt's special-QP positions visit {@code port n % ports, slot n & 1}, which skips some special QPs on
 * multi-port devices ([quirk]); rvt visits all of them.
 */
public final class RvtQpIter implements QpIter {
    private final QpDevice device;
    private final RvtQpTable table;
    private final int specials;
    private int n = -1;
    private RvtQp[] bucket;
    private int inBucket;
    private RvtQp qp;

    RvtQpIter(QpDevice device, RvtQpTable table) {
        this.device = device;
        this.table = table;
        this.specials = 2 * device.portCount();
    }

    @Override
    public boolean next() {
        if (bucket != null && ++inBucket < bucket.length) {
            qp = bucket[inBucket];
            return true;
        }
        bucket = null;
        while (++n < specials + table.bucketCount()) {
            if (n < specials) {
                RvtQp s = device.port(n / 2 + 1).specialQp(n & 1);
                if (s != null) {
                    qp = s;
                    return true;
                }
            } else {
                RvtQp[] b = table.bucketAt(n - specials);
                if (b.length > 0) {
                    bucket = b;
                    inBucket = 0;
                    qp = b[0];
                    return true;
                }
            }
        }
        qp = null;
        return false;
    }

    @Override
    public RvtQp qp() {
        return qp;
    }
}
