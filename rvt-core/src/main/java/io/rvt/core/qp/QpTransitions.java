package io.rvt.core.qp;

import io.rvt.api.QpAttrMask;
import io.rvt.api.QpState;
import io.rvt.api.QpType;

/**
 * The IBTA QP state-transition table that rdmavt applies through the IB core ({@code ib_modify_qp_is_ok}): for each
 * valid {@code cur -> new} pair and QP type, the attributes the transition requires and those it allows.
 */
public final class QpTransitions {
    private QpTransitions() {
    }

    private static final int PKEY = QpAttrMask.PKEY_INDEX.bit();
    private static final int PORT = QpAttrMask.PORT.bit();
    private static final int QKEY = QpAttrMask.QKEY.bit();
    private static final int ACC = QpAttrMask.ACCESS_FLAGS.bit();
    private static final int AV = QpAttrMask.AV.bit();
    private static final int MTU = QpAttrMask.PATH_MTU.bit();
    private static final int DQPN = QpAttrMask.DEST_QPN.bit();
    private static final int RQ_PSN = QpAttrMask.RQ_PSN.bit();
    private static final int SQ_PSN = QpAttrMask.SQ_PSN.bit();
    private static final int DRD = QpAttrMask.MAX_DEST_RD_ATOMIC.bit();
    private static final int QRD = QpAttrMask.MAX_QP_RD_ATOMIC.bit();
    private static final int RNRT = QpAttrMask.MIN_RNR_TIMER.bit();
    private static final int TIMEOUT = QpAttrMask.TIMEOUT.bit();
    private static final int RETRY = QpAttrMask.RETRY_CNT.bit();
    private static final int RNR_RETRY = QpAttrMask.RNR_RETRY.bit();
    private static final int CUR = QpAttrMask.CUR_STATE.bit();
    private static final int ALT = QpAttrMask.ALT_PATH.bit();
    private static final int MIG = QpAttrMask.PATH_MIG_STATE.bit();
    private static final int SQDN = QpAttrMask.EN_SQD_ASYNC_NOTIFY.bit();

    /** Types indexed: 0 UD, 1 UC, 2 RC, 3 SMI/GSI. */
    private static final int UD = 0;
    private static final int UC = 1;
    private static final int RC = 2;
    private static final int SPECIAL = 3;

    /** [cur][new][type] = {required, optional}; null = transition invalid. */
    private static final int[][][][] TABLE = new int[7][7][][];

    private static void all(QpState cur, QpState next, int req, int opt) {
        TABLE[cur.value()][next.value()] = new int[][] {{req, opt}, {req, opt}, {req, opt}, {req, opt}};
    }

    private static void per(QpState cur, QpState next, int[] ud, int[] uc, int[] rc, int[] special) {
        TABLE[cur.value()][next.value()] = new int[][] {ud, uc, rc, special};
    }

    private static int[] ro(int req, int opt) {
        return new int[] {req, opt};
    }

    static {
        all(QpState.RESET, QpState.RESET, 0, 0);
        per(QpState.RESET, QpState.INIT, ro(PKEY | PORT | QKEY, 0), ro(PKEY | PORT | ACC, 0),
                ro(PKEY | PORT | ACC, 0), ro(PKEY | QKEY, 0));
        per(QpState.INIT, QpState.INIT, ro(0, PKEY | PORT | QKEY), ro(0, PKEY | PORT | ACC),
                ro(0, PKEY | PORT | ACC), ro(0, PKEY | QKEY));
        per(QpState.INIT, QpState.RTR, ro(0, PKEY | QKEY), ro(AV | MTU | DQPN | RQ_PSN, ALT | ACC | PKEY),
                ro(AV | MTU | DQPN | RQ_PSN | DRD | RNRT, ALT | ACC | PKEY), ro(0, PKEY | QKEY));
        per(QpState.RTR, QpState.RTS, ro(SQ_PSN, CUR | QKEY), ro(SQ_PSN, CUR | ALT | ACC | MIG),
                ro(TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | QRD, CUR | ALT | ACC | RNRT | MIG), ro(SQ_PSN, CUR | QKEY));
        per(QpState.RTS, QpState.RTS, ro(0, CUR | QKEY), ro(0, CUR | ACC | ALT | MIG),
                ro(0, CUR | ACC | ALT | MIG | RNRT), ro(0, CUR | QKEY));
        all(QpState.RTS, QpState.SQD, 0, SQDN);
        per(QpState.SQD, QpState.RTS, ro(0, CUR | QKEY), ro(0, CUR | ALT | ACC | MIG),
                ro(0, CUR | ALT | ACC | RNRT | MIG), ro(0, CUR | QKEY));
        per(QpState.SQD, QpState.SQD, ro(0, PKEY | QKEY), ro(0, AV | ALT | ACC | PKEY | MIG),
                ro(0, PORT | AV | TIMEOUT | RETRY | RNR_RETRY | QRD | DRD | ALT | ACC | PKEY | RNRT | MIG),
                ro(0, PKEY | QKEY));
        per(QpState.SQE, QpState.RTS, ro(0, CUR | QKEY), ro(0, CUR | ACC), null, ro(0, CUR | QKEY));
        for (QpState s : new QpState[] {QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.SQE,
            QpState.ERR}) {
            all(s, QpState.RESET, 0, 0);
            all(s, QpState.ERR, 0, 0);
        }
    }

    private static int typeIndex(QpType type) {
        switch (type) {
            case UD:
                return UD;
            case UC:
                return UC;
            case RC:
                return RC;
            default:
                return SPECIAL;
        }
    }

    /**
     * Mirrors {@code ib_modify_qp_is_ok}.
     *
     * @param cur the current (or asserted) state
     * @param next the requested state
     * @param type the QP type
     * @param mask the attribute mask
     * @return null if allowed, else why not (for the error message)
     */
    public static String check(QpState cur, QpState next, QpType type, int mask) {
        if ((mask & CUR) != 0 && cur != QpState.RTR && cur != QpState.RTS && cur != QpState.SQD
                && cur != QpState.SQE) {
            return "CUR_STATE may only be given in RTR, RTS, SQD or SQE, not " + cur;
        }
        int[][] entry = TABLE[cur.value()][next.value()];
        int[] ro = entry == null ? null : entry[typeIndex(type)];
        if (ro == null) {
            return "transition " + cur + " -> " + next + " is not allowed for a " + type + " QP";
        }
        int req = ro[0];
        int opt = ro[1];
        if ((mask & req) != req) {
            return "transition " + cur + " -> " + next + " for " + type + " requires "
                    + QpAttrMask.describe(req & ~mask);
        }
        int extra = mask & ~(req | opt | QpAttrMask.STATE.bit());
        if (extra != 0) {
            return "transition " + cur + " -> " + next + " for " + type + " does not allow "
                    + QpAttrMask.describe(extra);
        }
        return null;
    }

    /**
     * @param cur the current state
     * @param next the requested state
     * @param type the QP type
     * @return the required attribute mask, or -1 if the transition is invalid
     */
    public static int required(QpState cur, QpState next, QpType type) {
        int[][] entry = TABLE[cur.value()][next.value()];
        int[] ro = entry == null ? null : entry[typeIndex(type)];
        return ro == null ? -1 : ro[0];
    }

    /**
     * @param cur the current state
     * @param next the requested state
     * @param type the QP type
     * @return the optional attribute mask, or -1 if the transition is invalid
     */
    public static int optional(QpState cur, QpState next, QpType type) {
        int[][] entry = TABLE[cur.value()][next.value()];
        int[] ro = entry == null ? null : entry[typeIndex(type)];
        return ro == null ? -1 : ro[1];
    }
}
