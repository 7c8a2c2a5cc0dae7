package io.rvt.driver.sim;

import io.rvt.api.spi.DriverQp;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The simulated HCA's per-QP send-engine state: a request counter that serialises the engine without locks (whoever
 * raises it from 0 drains the QP; requests that arrive meanwhile make the drainer loop once more, so none is lost)
 * and a pre-built task for the executor, so scheduling allocates nothing.
 */
final class SimQp {
    final DriverQp qp;
    final AtomicInteger pending = new AtomicInteger();
    final Runnable drainTask;
    volatile Thread drainer;
    volatile boolean stopped;

    SimQp(DriverQp qp, SimDriver driver) {
        this.qp = qp;
        this.drainTask = () -> driver.drain(this);
    }
}
