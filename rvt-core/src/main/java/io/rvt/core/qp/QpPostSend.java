package io.rvt.core.qp;

import static io.rvt.api.Errno.EINVAL;
import static io.rvt.api.Errno.ENOMEM;

import io.rvt.api.AccessFlag;
import io.rvt.api.Errno;
import io.rvt.api.QpState;
import io.rvt.api.QpState.Ops;
import io.rvt.api.ScatterGatherEntry;
import io.rvt.api.SendFlag;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.OperationFlag;
import io.rvt.api.spi.OperationParams;
import io.rvt.api.spi.Sge;
import io.rvt.api.spi.engine.QpFlags;
import io.rvt.api.spi.engine.WqeSetup;
import io.rvt.core.ah.RvtAh;
import io.rvt.core.mr.RvtMr;
import io.rvt.core.mr.RvtMw;

/**
 * A QP's post-send verb ({@code rvt_post_send} and {@code rvt_post_one_wr}): table-driven by the driver's operation
 * table, local REG_MR, LOCAL_INV and BIND_MW (rvt's, as rxe has it), UD address snapshots, the lkey checks of every SGE, PSN/LPSN/SSN assignment,
 * {@code setup_wqe}, then the slot published on the {@link RvtSendQueue}; and the choice between the driver's
 * {@code do_send} on the poster's thread and {@code schedule_send_no_lock}. {@code postLock} held while posting.
 */
final class QpPostSend {
    private QpPostSend() {
    }

    static void postSend(RvtQp qp, SendWorkRequest wr) {
        postSend(qp, wr, false);
    }

    /**
     * @param qp the QP
     * @param wr the list
     * @param type1Bind true when {@code bindMw} posts its BIND_MW for a type 1 window (as libibverbs does)
     */
    static void postSend(RvtQp qp, SendWorkRequest wr, boolean type1Bind) {
        if (wr == null) {
            throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX, "postSend: wr is null");
        }
        qp.checkPostable("postSend");
        qp.dev.checkVerb(io.rvt.api.spi.Verb.POST_SEND);
        int nreq = 0;
        int err = 0;
        boolean doSendNow;
        qp.postLock.lock();
        try {
            // Under postLock, which the removal's flush also takes: a post either publishes before that flush
            // (which completes its WQEs) or sees the device gone. rdmavt's check is outside the lock.
            if (!qp.dev.isAlive()) {
                throw new WorkRequestException(Errno.ENODEV, WorkRequestException.NO_INDEX,
                        "postSend: device " + qp.dev.name() + " was removed");
            }
            QpState s = qp.state;
            if (!s.can(Ops.POST_SEND_OK)) {
                // rdmavt returns -EINVAL without setting bad_wr here.
                throw new WorkRequestException(Errno.EINVAL, WorkRequestException.NO_INDEX,
                        "postSend: QP 0x" + Integer.toHexString(qp.qpNum) + " is in state " + s
                                + ", which does not accept sends");
            }
            qp.callSend.set(qp.sq.emptyForPoster() && wr.next() == null);
            for (SendWorkRequest w = wr; w != null; w = w.next()) {
                err = postOneWr(qp, w, type1Bind);
                if (err != 0) {
                    break;
                }
                nreq++;
            }
            doSendNow = nreq == 1 && qp.callSend.get();
        } finally {
            qp.postLock.unlock();
        }
        if (nreq > 0) {
            if (doSendNow) {
                qp.send.doSend(qp);
            } else {
                qp.send.scheduleSendNoLock(qp);
            }
        }
        if (err != 0) {
            throw new WorkRequestException(err, nreq, qp.postError);
        }
    }

    static int fail(RvtQp qp, int errno, String why) {
        qp.postError = why;
        return errno;
    }

    /** Mirrors {@code rvt_post_one_wr} (postLock held); returns 0 or a negative errno with {@link #postError} set. */
    static int postOneWr(RvtQp qp, SendWorkRequest wr, boolean type1Bind) {
        WrOpcode op = wr.opcode();
        if (op == null) {
            return fail(qp, -EINVAL.value(), "opcode is null");
        }
        if (wr.numSge() > qp.sq.maxSge()) {
            return fail(qp, -EINVAL.value(), "numSge " + wr.numSge() + " exceeds the QP's maxSendSge " + qp.sq.maxSge());
        }
        OperationParams params = qp.dev.operationTable().get(op);
        if (params == null) {
            return fail(qp, -EINVAL.value(), "opcode " + op + " is not supported by driver '" + qp.driver.name() + "'");
        }
        if (!params.supports(qp.type)) {
            return fail(qp, -EINVAL.value(), "opcode " + op + " is not allowed on a " + qp.type + " QP");
        }
        if (params.has(OperationFlag.PRIV) && qp.pd.isUser()) {
            return fail(qp, -EINVAL.value(), "opcode " + op + " is privileged and the QP's PD is a user PD");
        }
        if (params.has(OperationFlag.ATOMIC_SGE) && (wr.numSge() < 1 || wr.sge(0).length() < 8
                || (wr.sge(0).addr() & 7) != 0)) {
            return fail(qp, -EINVAL.value(), "opcode " + op + " needs a first SGE of at least 8 bytes, 8-byte aligned");
        }
        if (params.has(OperationFlag.ATOMIC) && qp.maxRdAtomic == 0) {
            return fail(qp, -EINVAL.value(), "opcode " + op + " needs maxRdAtomic > 0 (set MAX_QP_RD_ATOMIC)");
        }
        if (op == WrOpcode.ATOMIC_WRITE && (wr.numSge() != 1 || wr.sge(0).length() != 8)) {
            return fail(qp, -EINVAL.value(), "ATOMIC_WRITE needs exactly one 8-byte SGE (the value), got "
                    + wr.numSge() + " SGE" + (wr.numSge() == 1 ? " of " + wr.sge(0).length() + " bytes" : "s"));
        }
        if (op == WrOpcode.ATOMIC_WRITE && (wr.remoteAddr() & 7) != 0) {
            return fail(qp, -EINVAL.value(), "ATOMIC_WRITE needs an 8-byte aligned remote address, got 0x"
                    + Long.toHexString(wr.remoteAddr()));
        }
        if (op == WrOpcode.FLUSH && wr.numSge() != 0) {
            return fail(qp, -EINVAL.value(), "FLUSH carries no local data, got " + wr.numSge() + " SGEs");
        }
        boolean udLike = qp.type.isUdLike();
        if (udLike) {
            if (!(wr.ah() instanceof RvtAh) || ((RvtAh) wr.ah()).rvtPd() != qp.pd) {
                return fail(qp, -EINVAL.value(), "a " + qp.type + " send needs an address handle of the QP's PD, got "
                        + (wr.ah() == null ? "none" : "one of another PD"));
            }
            if (((RvtAh) wr.ah()).isDestroyed()) {
                return fail(qp, -EINVAL.value(), "the address handle " + wr.ah() + " was destroyed");
            }
        }
        boolean local = params.has(OperationFlag.LOCAL);
        boolean deferred = false;
        if (local) {
            boolean signaled = SendFlag.SIGNALED.in(wr.sendFlags());
            if (op == WrOpcode.REG_MR) {
                if (!(wr.mr() instanceof RvtMr)) {
                    return fail(qp, -EINVAL.value(), "REG_MR needs a memory region from allocMr, got "
                            + (wr.mr() == null ? "none" : wr.mr().getClass().getName()));
                }
                RvtMr fr = (RvtMr) wr.mr();
                int r = qp.dev.lkeyTable().fastRegMr(qp.pd, fr, wr.key(), wr.access());
                if (r < 0) {
                    return fail(qp, r, "REG_MR of key 0x" + Integer.toHexString(wr.key()) + " failed: "
                            + regMrProblem(qp, fr, wr.key()));
                }
                if (!signaled) {
                    return 0;
                }
            } else if (op == WrOpcode.LOCAL_INV) {
                if (SendFlag.FENCE.in(wr.sendFlags()) || qp.sq.localOpsPending() > 0) {
                    deferred = true;
                } else {
                    if (qp.dev.lkeyTable().invalidateRkey(qp.pd, wr.invalidateRkey()) < 0) {
                        return fail(qp, -EINVAL.value(), "LOCAL_INV of rkey 0x" + Integer.toHexString(wr.invalidateRkey())
                                + " failed: no such region, nor a bound type 2 memory window, in the QP's PD");
                    }
                    if (!signaled) {
                        return 0;
                    }
                }
            } else if (op == WrOpcode.BIND_MW) {
                // rxe binds in its requester and reports a failure as an MW_BIND_ERR completion; rvt binds at post,
                // as rdmavt does REG_MR, and refuses with the errno instead (docs/api.md).
                if (!(wr.mw() instanceof RvtMw) || ((RvtMw) wr.mw()).rvtPd().dev() != qp.dev) {
                    return fail(qp, -EINVAL.value(), "BIND_MW needs a memory window from allocMw on device "
                            + qp.dev.name() + ", got " + (wr.mw() == null ? "none" : wr.mw().toString()));
                }
                if (signaled && !qp.sq.isAvail(false)) {
                    return fail(qp, -ENOMEM.value(), "send queue is full (" + qp.sq.maxSendWr()
                            + " WQEs outstanding)");
                }
                try {
                    ((RvtMw) wr.mw()).bind(qp, qp.pd, type1Bind, wr.key(), wr.bindInfo());
                } catch (VerbsException e) {
                    return fail(qp, -e.errnoValue(), e.getMessage());
                }
                if (!signaled) {
                    return 0;
                }
            } else {
                return fail(qp, -EINVAL.value(), "opcode " + op + " is not a local operation");
            }
        }
        boolean reservedOp = params.has(OperationFlag.USE_RESERVE);
        if (!qp.sq.isAvail(reservedOp)) {
            return fail(qp, -ENOMEM.value(), reservedOp
                    ? "no reserved send slot left (reserved_operations " + qp.sq.reserved() + " in use)"
                    : "send queue is full (" + qp.sq.maxSendWr() + " WQEs outstanding)");
        }
        int head = qp.sq.headForPoster();
        int next = qp.sq.swqeIncr(head);
        RvtSwqe wqe = qp.sq.swqe(head);
        wqe.fill(wr, params.shape(), udLike);

        // SGE validation and merge (rvt_lkey_ok); the access check uses the numeric opcode [quirk].
        int acc = op.value() >= WrOpcode.RDMA_READ.value() ? AccessFlag.LOCAL_WRITE.bit() : 0;
        int length = 0;
        int j = 0;
        Sge lastSge = null;
        for (int i = 0; i < wr.numSge(); i++) {
            ScatterGatherEntry s = wr.sge(i);
            if (s.length() == 0) {
                continue;
            }
            int r = qp.dev.lkeyTable().lkeyOk(qp.pd, wqe.sge(j), lastSge, s, acc);
            if (r < 0) {
                for (int k = 0; k < j; k++) {
                    wqe.sge(k).release();
                }
                wqe.numSge = 0;
                return fail(qp, -EINVAL.value(), "sge " + i + " (addr 0x" + Long.toHexString(s.addr()) + ", length "
                        + s.length() + ", lkey 0x" + Integer.toHexString(s.lkey()) + ") failed the lkey check"
                        + (acc != 0 ? " (LOCAL_WRITE needed)" : ""));
            }
            length += s.length();
            if (r == 1) {
                lastSge = wqe.sge(j);
            }
            j += r;
        }
        wqe.numSge = j;
        wqe.length = length;
        int lp = qp.logPmtu;
        if (udLike) {
            RvtAh ah = (RvtAh) wr.ah();
            lp = ah.logPmtu();
            wqe.ahAttrCache().copyFrom(ah.attr());
        }
        if (local) {
            if (deferred) {
                qp.sq.localOpQueued();
            } else {
                wqe.sendFlags |= QpFlags.SEND_COMPLETION_ONLY;
            }
            wqe.ssn = 0;
            wqe.psn = 0;
            wqe.lpsn = 0;
        } else {
            wqe.ssn = qp.sendSsn++;
            wqe.psn = qp.req.nextPsn;
            wqe.lpsn = wqe.psn + (length != 0 ? (length - 1) >>> lp : 0);
        }
        if (qp.driver instanceof WqeSetup setup) {
            int r = setup.setupWqe(qp, wqe, qp.callSend);
            if (r < 0) {
                if (udLike) {
                    wqe.clearAh();
                }
                wqe.putMrs();
                wqe.numSge = 0;
                // The usual reason, said when it applies (the check is the driver's, as in rdmavt and hfi1).
                String mtu = udLike && lp > 0 && Integer.toUnsignedLong(length) > 1L << lp
                        ? " exceeds the path MTU " + (1 << lp) + " of its address handle" : "";
                return fail(qp, r, "the driver's setup_wqe refused the work request (opcode " + op + ", length "
                        + Integer.toUnsignedString(length) + mtu + ", returned " + r + ")");
            }
        }
        if (!local) {
            qp.req.nextPsn = wqe.lpsn + 1;
        }
        qp.sq.publish(wqe, reservedOp, next);
        return 0;
    }

    /** Says which of {@code RvtLkeyTable.fastRegMr}'s checks refused a REG_MR. */
    static String regMrProblem(RvtQp qp, RvtMr mr, int key) {
        if (mr.rvtPd() != qp.pd) {
            return "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ") belongs to another PD than the QP's";
        }
        if (!mr.isFastReg() || mr.lkey() == 0) {
            return "the region (lkey 0x" + Integer.toHexString(mr.lkey()) + ") is not a fast-registration region"
                    + " (allocMr)";
        }
        if ((key & 0xFFFF_FF00) != (mr.lkey() & 0xFFFF_FF00)) {
            return "the new key changes the index bits of the region's key 0x" + Integer.toHexString(mr.lkey())
                    + " (only the low 8 bits may change)";
        }
        return "the access asks for write on a read-only region";
    }
}
