package io.rvt.driver.sim.clock;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link CompositeAgent} whose members come and go while it runs: the shared thread of a fabric whose HCAs are
 * created and removed at run time (OSGi configurations). {@link #add} and {@link #remove} may be called from any
 * thread; {@link #remove} returns only once the runner has finished the duty cycle that might still be running the
 * removed agent, so the caller may then free what that agent used.
 */
public final class DynamicCompositeAgent implements Agent {
    private static final Agent[] NONE = new Agent[0];
    private static final long REMOVE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String roleName;
    /** Copy-on-write under {@code this}; read once per duty cycle by the running thread. */
    private volatile Agent[] agents = NONE;
    /** Duty cycles completed (odd while one is in progress): what {@link #remove} waits on. */
    private volatile long cycles;
    private volatile Thread runningThread;
    private volatile boolean closed;

    /**
     * @param roleName the composite's name (and its thread's)
     */
    public DynamicCompositeAgent(String roleName) {
        this.roleName = Objects.requireNonNull(roleName, "roleName");
    }

    /**
     * Adds an agent; it runs from the next duty cycle on. Its {@link Agent#onStart()} is not called: members are
     * started and closed by whoever adds and removes them.
     *
     * @param agent the agent
     */
    public synchronized void add(Agent agent) {
        Objects.requireNonNull(agent, "agent");
        Agent[] a = Arrays.copyOf(agents, agents.length + 1);
        a[a.length - 1] = agent;
        agents = a;
    }

    /**
     * Removes an agent and waits (up to 5 s) until the running duty cycle, which may still call it, has ended.
     * Called from the composite's own thread, or when it is not running, it returns at once.
     *
     * @param agent the agent
     * @return true if it was a member
     */
    public boolean remove(Agent agent) {
        synchronized (this) {
            int i = Arrays.asList(agents).indexOf(agent);
            if (i < 0) {
                return false;
            }
            Agent[] a = new Agent[agents.length - 1];
            System.arraycopy(agents, 0, a, 0, i);
            System.arraycopy(agents, i + 1, a, i, a.length - i);
            agents = a;
        }
        Thread t = runningThread;
        if (t == null || t == Thread.currentThread()) {
            return true;
        }
        long seen = cycles;
        // A cycle in progress (odd) may hold the old array: wait for it to end; an idle one will not read it again.
        long target = (seen & 1) == 1 ? seen + 1 : seen;
        long deadline = System.nanoTime() + REMOVE_WAIT_NANOS;
        while (cycles < target && runningThread != null && !closed && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000);
        }
        return true;
    }

    /** @return the number of members */
    public int size() {
        return agents.length;
    }

    @Override
    public void onStart() {
        runningThread = Thread.currentThread();
    }

    @Override
    public int doWork() throws Exception {
        cycles++; // only the running thread writes
        try {
            int work = 0;
            for (Agent a : agents) {
                work += a.doWork();
            }
            return work;
        } finally {
            cycles++;
        }
    }

    @Override
    public void onClose() {
        closed = true;
        runningThread = null;
    }

    @Override
    public String roleName() {
        return roleName;
    }
}
