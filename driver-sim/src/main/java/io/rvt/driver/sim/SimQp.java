package io.rvt.driver.sim;

import io.rvt.api.spi.DriverQp;
import io.rvt.transport.QpSendEngine;

/** The simulated HCA's per-QP send engine: with a pre-built task for the executor, so scheduling allocates nothing. */
final class SimQp extends QpSendEngine {
    final Runnable drainTask;

    SimQp(DriverQp qp, SimDriver driver) {
        super(qp);
        this.drainTask = () -> driver.drain(this);
    }
}
