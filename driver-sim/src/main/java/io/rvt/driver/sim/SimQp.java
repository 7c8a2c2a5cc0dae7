package io.rvt.driver.sim;

import io.rvt.api.spi.DriverQp;
import io.rvt.driver.sim.fabric.FabricPort;
import io.rvt.driver.sim.fabric.Frame;
import io.rvt.transport.QpSendEngine;

/** The simulated HCA's per-QP send engine: with a pre-built task for the executor, so scheduling allocates nothing. */
final class SimQp extends QpSendEngine {
    final Runnable drainTask;
    /**
     * A frame taken for a packet the transport then did not make (every drain ends with one such try): kept for the
     * next packet instead of going back to the pool and out again. Touched only by the QP's one drainer; released
     * when the engine stops ({@link SimDriver#qpPrivFree}).
     */
    Frame spare;
    /** The port's {@code turns()} when a post last drained the QP on its own thread (the doorbell's hint). */
    int postTurn = -1;
    /** The port whose pool the last drain found empty (1-based). */
    int waitPort = 1;
    /** The next engine waiting for a frame of the same port; under that port's wait list's monitor. */
    SimQp nextWaiting;
    /** The fabric's answer to {@code burstLimit(burstPort, burstDlid)} while its burst epoch is {@code burstEpoch}. */
    int burstLimit = 1;
    int burstEpoch = -1;
    int burstDlid = -1;
    FabricPort burstPort;

    SimQp(DriverQp qp, SimDriver driver) {
        super(qp);
        this.drainTask = () -> driver.drain(this);
    }
}
