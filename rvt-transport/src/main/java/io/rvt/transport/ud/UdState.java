package io.rvt.transport.ud;

import io.rvt.api.WorkCompletion;
import io.rvt.api.spi.engine.EngineQp;
import io.rvt.transport.engine.QpProtocolState;
import io.rvt.transport.engine.SendScheduler;

/**
 * The UD protocol state of one QP (UD, GSI or SMI): only the responder's scratch completion, since UD keeps no
 * sequence state; the WQE reuse after an oversized packet is rdmavt's {@code RVT_R_REUSE_SGE} flag on the QP.
 */
public final class UdState extends QpProtocolState {
    /** The receive completion being built (recvLock). */
    final WorkCompletion recvWc = new WorkCompletion();

    /**
     * @param qp the UD, GSI or SMI QP
     * @param engine the UD engine
     * @param scheduler the driver's send scheduler
     */
    public UdState(EngineQp qp, UdEngine engine, SendScheduler scheduler) {
        super(qp, scheduler);
        engine(engine, this);
    }

    @Override
    public void reset() {
        recvWc.clear();
    }

    @Override
    public String toString() {
        return "UdState{qp=0x" + Integer.toHexString(qp().qpNum()) + '}';
    }
}
