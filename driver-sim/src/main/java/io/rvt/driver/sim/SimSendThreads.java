package io.rvt.driver.sim;

import io.rvt.api.spi.agent.AgentRunner;
import io.rvt.api.spi.agent.IdleStrategy;
import io.rvt.api.spi.agent.ThreadingMode;
import io.rvt.driver.sim.fabric.Fabric;
import io.rvt.driver.sim.fabric.FabricMode;
import io.rvt.driver.sim.fabric.FabricPort;

/**
 * Who runs a simulated HCA's send engine, and when a post drains its QP on the posting thread: the fabric's event
 * loop (deterministic); else the real-time {@link SimSendAgent}, run by a thread of its own
 * ({@link ThreadingMode#DEDICATED}), by the fabric's duty cycle ({@link ThreadingMode#PROGRESS}: the pollers'
 * progress hook and the backstop) or by the caller ({@link ThreadingMode#INVOKER}), with the doorbell on a fabric
 * that is not driven by a thread of its own.
 */
final class SimSendThreads {
    private final Fabric fabric;
    private final String name;
    private final FabricPort[] ports;
    private final boolean deterministic;
    /** The real-time send engine; null in a deterministic fabric. */
    private final SimSendAgent agent;
    private final IdleStrategy idleStrategy;
    private final boolean ownThread;
    /**
     * A QP's second and later posts between two cycles only ring the doorbell (queue the QP for its send engine),
     * which the fabric's delivery agent runs just before it takes port 1's ingress ({@link FabricPort#sender}): a
     * real-time fabric run by the pollers' progress hook or the caller ({@link ThreadingMode#PROGRESS},
     * {@link ThreadingMode#INVOKER}). With PROGRESS that is how the fabric's duty cycle runs the send engine: once per
     * cycle, before it takes port 1's frames (as a member of the cycle's agents as well, it ran a second time, after
     * the deliveries, to find its queue empty, or to queue frames the next cycle takes, as the doorbell does).
     */
    private final boolean doorbell;
    private volatile AgentRunner runner;

    /**
     * @param driver the HCA
     * @param asked the threading asked for (null: PROGRESS on a PROGRESS fabric, else DEDICATED)
     * @param idle the idle strategy of its own thread
     * @param maxQp most QPs (the queue of scheduled QPs has one slot each)
     * @param ports its ports, attached
     */
    SimSendThreads(SimDriver driver, ThreadingMode asked, IdleStrategy idle, int maxQp,
            FabricPort[] ports) {
        this.fabric = driver.fabric();
        this.name = driver.name();
        this.ports = ports;
        this.deterministic = fabric.mode() == FabricMode.DETERMINISTIC;
        this.idleStrategy = idle;
        ThreadingMode threading = asked != null ? asked
                : fabric.threading() == ThreadingMode.PROGRESS ? ThreadingMode.PROGRESS : ThreadingMode.DEDICATED;
        if (threading == ThreadingMode.PROGRESS && fabric.threading() != ThreadingMode.PROGRESS) {
            throw new IllegalArgumentException("HCA '" + name + "': ThreadingMode.PROGRESS runs the send engine in "
                    + "the fabric's duty cycle, but fabric '" + fabric.name() + "' is " + fabric.threading());
        }
        this.ownThread = threading == ThreadingMode.DEDICATED;
        this.doorbell = !deterministic && !ownThread && fabric.threading() != ThreadingMode.DEDICATED;
        this.agent = deterministic ? null : new SimSendAgent(driver, maxQp, "rvt-sim-" + name + "-send");
    }

    /** @return the real-time send engine, or null in a deterministic fabric */
    SimSendAgent agent() {
        return agent;
    }

    /** The HCA was registered: the send engine joins the doorbell of the fabric's cycle, or a thread of its own. */
    void start() {
        if (doorbell) {
            ports[0].sender(agent);
        }
        if (agent != null && ownThread) {
            runner = AgentRunner.start(agent, idleStrategy, e -> System.getLogger(SimDriver.class.getName())
                    .log(System.Logger.Level.WARNING, "send engine of " + name + " failed", e));
        }
    }

    /** Before the ports close: the fabric's cycle no longer runs the doorbell. */
    void unhookDoorbell() {
        if (doorbell) {
            ports[0].sender(null);
        }
    }

    /** After the ports closed: stops the send thread, if any. */
    void stop() {
        AgentRunner r = runner;
        if (r != null) {
            r.close();
        }
    }

    /** QP locks may be held: the fabric's executor (deterministic) or the send agent (real time) drains the QP. */
    void schedule(SimQp s) {
        if (deterministic) {
            fabric.executor().execute(s.drainTask);
        } else {
            agent.put(s); // each QP is queued at most once, so the queue (one slot per QP) always has room
        }
    }

    /**
     * With the {@link #doorbell}, the first post of a QP between two cycles of the fabric drains here, and the later
     * ones queue the QP: the next cycle drains them all at once, just before it takes their port's frames (nothing
     * moves sooner on such a fabric), where a ping-pong's one post per turn still leaves at once.
     *
     * @return true if the post drains the QP on the posting thread
     */
    boolean drainsHere(SimQp s) {
        if (!doorbell) {
            return true;
        }
        int portNum = s.qp.portNum();
        int turn = ports[(portNum >= 1 && portNum <= ports.length ? portNum : 1) - 1].turns();
        if (s.postTurn == turn) {
            return false; // drained here once since the fabric last took the port's frames: join the next cycle
        }
        s.postTurn = turn; // a hint: two posting threads at once only make both drain here or both queue
        return true;
    }
}
