package io.rvt.api.spi.agent;

import java.util.List;

/**
 * Several agents run as one, in order, on one thread (Aeron's shared threading mode): e.g. a real-time fabric's
 * delivery agent and the send engines of the HCAs on it, so that a 2-core machine spends one core on the whole
 * simulated network and one on the application.
 */
public final class CompositeAgent implements Agent {
    private final Agent[] agents;
    private final String roleName;

    /**
     * @param roleName the composite's name
     * @param agents the agents, run in this order on every duty cycle
     */
    public CompositeAgent(String roleName, List<? extends Agent> agents) {
        this.agents = agents.toArray(new Agent[0]);
        this.roleName = roleName;
    }

    @Override
    public void onStart() {
        for (Agent a : agents) {
            a.onStart();
        }
    }

    @Override
    public int doWork() throws Exception {
        int work = 0;
        for (Agent a : agents) {
            work += a.doWork();
        }
        return work;
    }

    @Override
    public void onClose() {
        for (Agent a : agents) {
            a.onClose();
        }
    }

    @Override
    public String roleName() {
        return roleName;
    }
}
