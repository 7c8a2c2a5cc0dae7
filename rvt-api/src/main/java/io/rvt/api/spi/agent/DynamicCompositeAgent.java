package io.rvt.api.spi.agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link CompositeAgent} whose members come and go while it runs (Agrona's {@code DynamicCompositeAgent}): the
 * engine of a fabric whose HCAs are created and removed at run time (OSGi configurations). {@link #add} and
 * {@link #remove} may be called from any thread; once the composite has started ({@link #onStart()}) the change itself
 * is made on the agent's thread, at the start of a duty cycle, where the added member's {@link Agent#onStart()} and
 * the removed one's {@link Agent#onClose()} run. {@link #remove} returns only once that has happened, so the caller
 * may then free what the removed agent used.
 *
 * <p>"The agent's thread" is whichever thread runs {@link #doWork()}: an {@link AgentRunner}'s, an invoker's, or the
 * thread that holds a {@link ProgressEngine} (an application's poller or the backstop). Before the composite starts
 * and after it closed, the caller makes the change itself, without lifecycle calls (the composite's own
 * {@link #onStart()} and {@link #onClose()} start and close the members it has then).
 */
public final class DynamicCompositeAgent implements Agent {
    private static final Agent[] NONE = new Agent[0];
    private static final long REMOVE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final String roleName;
    /** The members; written only by the thread in a cycle (or making a change), read once per cycle. */
    private volatile Agent[] agents = NONE;
    /** The thread in a duty cycle or making the changes, else null: only it touches {@link #agents}' changes. */
    private final AtomicReference<Thread> cycling = new AtomicReference<>();
    /** Changes asked for and not yet made; under {@code this}. */
    private final List<Change> pending = new ArrayList<>();
    /** True while {@link #pending} is not empty; read without the lock at the start of each cycle. */
    private volatile boolean changes;
    /** Between {@link #onStart()} and {@link #onClose()}: changes are the agent thread's to make. */
    private volatile boolean attached;

    /** An add or a remove, made on the agent's thread; {@link #done} tells the asking thread. */
    private static final class Change {
        final Agent agent;
        final boolean add;
        volatile boolean done;
        boolean member;

        Change(Agent agent, boolean add) {
            this.agent = agent;
            this.add = add;
        }
    }

    /**
     * @param roleName the composite's name (and its thread's)
     */
    public DynamicCompositeAgent(String roleName) {
        this.roleName = Objects.requireNonNull(roleName, "roleName");
    }

    /**
     * Adds an agent; it runs from the next duty cycle on, after its {@link Agent#onStart()} on the agent's thread.
     * Returns without waiting when a cycle is running on another thread.
     *
     * @param agent the agent
     */
    public void add(Agent agent) {
        request(new Change(Objects.requireNonNull(agent, "agent"), true), false);
    }

    /**
     * Removes an agent and waits (up to 5 s) until the agent's thread has taken it out, after its
     * {@link Agent#onClose()}: no cycle runs it from then on. Called from inside a cycle (a member removing itself or
     * another), it only asks; the change is made when that cycle has ended.
     *
     * @param agent the agent
     * @return true if it was a member (or, called from inside a cycle, is asked to leave)
     */
    public boolean remove(Agent agent) {
        Change c = new Change(Objects.requireNonNull(agent, "agent"), false);
        if (cycling.get() == Thread.currentThread()) {
            synchronized (this) {
                pending.add(c);
                changes = true;
            }
            return Arrays.asList(agents).contains(agent);
        }
        request(c, true);
        return c.member;
    }

    private void request(Change c, boolean await) {
        synchronized (this) {
            pending.add(c);
            changes = true;
        }
        long deadline = System.nanoTime() + REMOVE_WAIT_NANOS;
        while (!c.done) {
            Thread self = Thread.currentThread();
            if (!attached && cycling.compareAndSet(null, self)) {
                try {
                    if (!attached) { // checked again: the agent's thread may have started just before the CAS
                        applyChanges(false); // not started (or closed): no agent thread to ask
                    }
                } finally {
                    cycling.set(null);
                }
            } else if (!await || System.nanoTime() - deadline > 0) {
                return; // the agent's thread makes the change when it starts its next cycle
            } else {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    /** Makes the pending changes, with the members' lifecycle calls if started; the thread holds {@link #cycling}. */
    private void applyChanges(boolean lifecycle) {
        List<Change> todo;
        synchronized (this) {
            todo = new ArrayList<>(pending);
            pending.clear();
            changes = false;
        }
        for (Change c : todo) {
            Agent[] old = agents;
            int i = Arrays.asList(old).indexOf(c.agent);
            if (c.add) {
                if (lifecycle) {
                    c.agent.onStart();
                }
                Agent[] a = Arrays.copyOf(old, old.length + 1);
                a[a.length - 1] = c.agent;
                agents = a;
                c.member = true;
            } else if (i >= 0) {
                Agent[] a = new Agent[old.length - 1];
                System.arraycopy(old, 0, a, 0, i);
                System.arraycopy(old, i + 1, a, i, a.length - i);
                agents = a;
                c.member = true;
                if (lifecycle) {
                    c.agent.onClose();
                }
            }
            c.done = true;
        }
    }

    /** @return the number of members */
    public int size() {
        return agents.length;
    }

    @Override
    public int doWork() throws Exception {
        Thread self = Thread.currentThread();
        if (!cycling.compareAndSet(null, self)) {
            return 0; // another thread is making a change just now
        }
        try {
            if (changes) {
                applyChanges(attached);
            }
            int work = 0;
            for (Agent a : agents) {
                work += a.doWork();
            }
            return work;
        } finally {
            // a release store, as a lock's unlock: the next CAS from null acquires what this cycle wrote, and no
            // StoreLoad fence is paid on every duty cycle (an empty poll's progress hook runs one)
            cycling.lazySet(null);
        }
    }

    /** Starts every member it has now, on the agent's thread; from now on changes are made there. */
    @Override
    public void onStart() {
        // Holding the cycle, so that a change another thread makes meanwhile comes wholly before (its member started
        // here) or after (made on this thread, started then): between the loop and the flag it was started by no one
        // (DynamicCompositeAgentTest at load 20: a member added as the runner started never had onStart).
        boolean held = hold();
        try {
            for (Agent a : agents) {
                a.onStart();
            }
            attached = true;
        } finally {
            if (held) {
                cycling.set(null);
            }
        }
    }

    /**
     * Takes {@link #cycling} for the agent's thread, waiting for a caller that makes a change just now.
     *
     * @return false if this thread held it already (called from inside a cycle): not to be released then
     */
    private boolean hold() {
        Thread self = Thread.currentThread();
        if (cycling.get() == self) {
            return false;
        }
        while (!cycling.compareAndSet(null, self)) {
            Thread.onSpinWait();
        }
        return true;
    }

    /** Closes every member still in, on the agent's thread, after its last cycle. */
    @Override
    public void onClose() {
        boolean held = hold();
        try {
            attached = false;
            for (Agent a : agents) {
                a.onClose();
            }
        } finally {
            if (held) {
                cycling.set(null);
            }
        }
    }

    @Override
    public String roleName() {
        return roleName;
    }
}
