package io.rvt.driver.sim;

import io.rvt.api.spi.agent.Agent;
import io.rvt.driver.sim.fabric.MpmcRing;

/**
 * The real-time send engine of a simulated HCA, in the duty-cycle style: QPs scheduled from paths that hold QP
 * locks ({@code schedule_send}) are queued here, and each {@link #doWork()} drains a bounded number of them. A QP is
 * queued at most once at a time (its pending counter goes from 0 to 1 only once per drain), so the ring never
 * overflows when it holds as many slots as the device has QPs.
 */
final class SimSendAgent implements Agent {
    private static final int QPS_PER_DUTY_CYCLE = 64;

    private final SimDriver driver;
    private final MpmcRing<SimQp> ring;
    private final String roleName;

    SimSendAgent(SimDriver driver, int capacity, String roleName) {
        this.driver = driver;
        this.ring = new MpmcRing<>(capacity);
        this.roleName = roleName;
    }

    /**
     * Queues a QP whose send engine should run (once: the caller's pending counter guarantees it).
     *
     * @param qp the QP
     */
    void put(SimQp qp) {
        ring.put(qp);
    }

    @Override
    public int doWork() {
        int work = 0;
        SimQp qp;
        while (work < QPS_PER_DUTY_CYCLE && (qp = ring.poll()) != null) {
            driver.drain(qp);
            work++;
        }
        return work;
    }

    @Override
    public String roleName() {
        return roleName;
    }
}
