package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.Agent;
import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.DynamicCompositeAgent;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ProgressEngine;
import io.rvt.api.spi.agent.ThreadingMode;
import java.util.function.Consumer;

/**
 * A fabric's duty cycle and who runs it ({@link ThreadingMode}): a thread of its own (DEDICATED), the caller through
 * {@link #agent()} (INVOKER), or a {@link ProgressEngine} over the fabric's agent and the send engines of its HCAs,
 * run by the pollers' progress hook and a backstop thread (PROGRESS).
 */
final class DutyCycle {
    private final Agent agent;
    private final AgentRunner runner;
    /** {@link ThreadingMode#PROGRESS}: the fabric's agent and its HCAs' send engines, run by {@link #progress}. */
    private final DynamicCompositeAgent members;
    private final ProgressEngine progress;

    /**
     * @param engineAgent the fabric engine's agent
     * @param role the agent's role name (its thread's name)
     * @param threading who runs it
     * @param idle the idle strategy of its thread (the backstop's with PROGRESS)
     * @param quietNanos PROGRESS: how long no caller must have progressed before the backstop does
     * @param errors where the thread's errors go
     */
    DutyCycle(Agent engineAgent, String role, ThreadingMode threading, IdleStrategy idle, long quietNanos,
            Consumer<Throwable> errors) {
        this.agent = new Agent() {
            @Override
            public int doWork() throws Exception {
                return engineAgent.doWork();
            }

            @Override
            public String roleName() {
                return role;
            }
        };
        this.runner = threading == ThreadingMode.DEDICATED ? AgentRunner.start(agent, idle, errors) : null;
        if (threading == ThreadingMode.PROGRESS) {
            members = new DynamicCompositeAgent(role);
            members.add(agent);
            progress = ProgressEngine.start(members, ThreadingMode.PROGRESS, idle, quietNanos, errors);
        } else {
            members = null;
            progress = null;
        }
    }

    Agent agent() {
        return agent;
    }

    Thread thread() {
        return runner != null ? runner.thread() : progress != null ? progress.thread() : null;
    }

    /** @return the work done by one progress call with {@code budget}; 0 without PROGRESS */
    int progress(int budget) {
        return progress != null ? progress.progress(budget) : 0;
    }

    ProgressEngine progressEngine() {
        return progress;
    }

    void addEngine(Agent engine) {
        if (members != null) {
            members.add(engine);
        }
    }

    void removeEngine(Agent engine) {
        if (members != null) {
            members.remove(engine);
        }
    }

    /** Stops the thread, if any. */
    void close() {
        if (runner != null) {
            runner.close();
        }
        if (progress != null) {
            progress.close();
        }
    }
}
