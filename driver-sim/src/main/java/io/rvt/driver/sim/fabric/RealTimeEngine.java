package io.rvt.driver.sim.fabric;

import io.rvt.api.spi.agent.Agent;
import io.rvt.driver.sim.clock.NanoClock;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Real-time mode: senders put frames on their port's ingress ring; one delivery agent drains the rings, stamps the
 * frames with one clock reading per cycle (their send time), runs the send and switch stages at once (computing each
 * frame's due time from the link models), holds each frame on the receiver's heap until due by the clock, then
 * delivers it. Also runs executor tasks on the agent's thread.
 */
final class RealTimeEngine extends Engine {
    private static final int INGRESS_BATCH = 256;
    private static final int TASK_BATCH = 64;

    private final NanoClock clock;
    private final String roleName;
    private final Consumer<Throwable> errorHandler;
    private final MpmcRing<Runnable> tasks;
    private final Executor executor = this::execute;
    /** Ports the agent serves; copy-on-write under {@code this}, read by the agent. Closed ones stay until drained. */
    private volatile FabricPort[] ports = new FabricPort[0];
    private volatile boolean closed;

    RealTimeEngine(Forwarder forwarder, NanoClock clock, String roleName, Consumer<Throwable> errorHandler,
            int taskCapacity) {
        super(forwarder);
        this.clock = clock;
        this.roleName = roleName;
        this.errorHandler = errorHandler;
        this.tasks = new MpmcRing<>(taskCapacity);
    }

    @Override
    NanoClock clock() {
        return clock;
    }

    @Override
    long sendTime() {
        return 0; // stamped in doWork, when the frame leaves the ingress queue
    }

    @Override
    boolean submit(Frame f) {
        return f.source.ingress.offer(f); // release: the agent's poll acquires the frame's fields
    }

    @Override
    void toSwitch(Frame f, long at) {
        forwarder.onSwitch(f, at);
    }

    @Override
    void toDeliver(Frame f, long at) {
        f.due = at;
        f.target.inFlight.add(f);
    }

    @Override
    synchronized void portAttached(FabricPort p) {
        FabricPort[] a = Arrays.copyOf(ports, ports.length + 1);
        a[a.length - 1] = p;
        ports = a;
    }

    private synchronized void remove(FabricPort p) {
        FabricPort[] old = ports;
        int n = 0;
        FabricPort[] a = new FabricPort[old.length - 1];
        for (FabricPort q : old) {
            if (q != p) {
                a[n++] = q;
            }
        }
        ports = a;
    }

    @Override
    Agent agent() {
        return new Agent() {
            @Override
            public int doWork() {
                return RealTimeEngine.this.doWork();
            }

            @Override
            public String roleName() {
                return roleName;
            }
        };
    }

    @Override
    Executor executor() {
        return executor;
    }

    private void execute(Runnable task) {
        if (closed) {
            throw new RejectedExecutionException("fabric agent " + roleName + " is closed");
        }
        if (!tasks.offer(task)) {
            throw new RejectedExecutionException("fabric agent " + roleName + ": task queue full (capacity "
                    + tasks.capacity() + ")");
        }
    }

    /**
     * One duty cycle: tasks, then every port's sender ({@link FabricPort#sender(Agent)}) and ingress, then every frame
     * now due.
     */
    int doWork() {
        Thread outer = cycleThread; // a cycle run from inside one (a handler's wait) leaves it as it found it
        cycleThread = Thread.currentThread();
        try {
            return cycle();
        } finally {
            cycleThread = outer;
        }
    }

    private int cycle() {
        int work = 0;
        Runnable task;
        while (work < TASK_BATCH && (task = tasks.poll()) != null) {
            work++;
            try {
                task.run();
            } catch (Throwable t) {
                errorHandler.accept(t);
            }
        }
        FabricPort[] ps = ports;
        long sent = Long.MIN_VALUE; // read once per cycle, when the first frame comes in
        for (FabricPort p : ps) {
            if (p.closed) {
                work += drainClosed(p);
                continue;
            }
            p.turns++; // the senders' doorbell hint (FabricPort.turns)
            Agent sender = p.sender();
            if (sender != null) {
                try {
                    work += sender.doWork(); // its frames go on this ingress now, delivered in this cycle
                } catch (Throwable t) {
                    errorHandler.accept(t);
                }
            }
            MpmcRing<Frame> in = p.ingress;
            for (int i = 0; i < INGRESS_BATCH; i++) {
                Frame f = in.pollSingleConsumer(); // this agent is the ingress' one consumer; pairs with submit()
                if (f == null) {
                    break;
                }
                if (sent == Long.MIN_VALUE) {
                    sent = clock.nanoTime();
                }
                for (Frame x = f; x != null; x = x.next) {
                    x.stampTime(sent); // a train's frames
                }
                forwarder.onSend(f, sent);
                work++;
            }
        }
        long now = sent; // the frames just taken in are due at their send time at the earliest
        for (FabricPort p : ps) {
            p.pool().endCycle(); // frames this cycle kept go back to the ring if a sender waits for one
            FrameHeap heap = p.inFlight;
            if (heap.isEmpty()) {
                continue;
            }
            if (now == Long.MIN_VALUE) {
                now = clock.nanoTime();
            }
            int delivered = 0;
            while (!heap.isEmpty() && heap.peekDue() <= now) {
                forwarder.onDeliver(heap.poll(), now);
                delivered++;
            }
            if (delivered > 0) {
                forwarder.endBatch(p); // e.g. the HCA sends the ACKs it coalesced over these frames
                work += delivered;
            }
        }
        return work;
    }

    private int drainClosed(FabricPort p) {
        int n = drain(p);
        remove(p);
        return n;
    }

    private int drain(FabricPort p) {
        long now = clock.nanoTime();
        int n = 0;
        Frame f;
        while ((f = p.ingress.pollSingleConsumer()) != null) {
            forwarder.drop(f, p, DropCause.CLOSED, now);
            n++;
        }
        while ((f = p.inFlight.poll()) != null) {
            forwarder.drop(f, p, DropCause.CLOSED, now);
            n++;
        }
        return n;
    }

    @Override
    void close() {
        closed = true;
        for (FabricPort p : ports) {
            drain(p);
        }
        while (tasks.poll() != null) {
            // dropped: the fabric is closed
        }
    }
}
