package io.rvt.launcher;

import io.rvt.api.CqNotify;
import io.rvt.api.Device;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.SigType;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import io.rvt.cm.ConnectRequest;
import io.rvt.cm.Connection;
import io.rvt.cm.QpOptions;
import java.net.InetAddress;

/**
 * The control connection of {@code rvt perf} between two processes: the first rvt-cm connection a client makes (its
 * REQ carries the table, the server's REP its memory region), an RC QP of its own on CQs and a buffer of its own,
 * over which the two sides step through the rows together with SEND messages ({@link PerfWire.Control}): as
 * perftest's processes synchronise between the sizes of {@code -a} and exchange their results. The data QPs never
 * see these messages, so the tables measure the data alone.
 */
final class PerfControl implements AutoCloseable {
    /** Bytes of one message slot. */
    private static final int SLOT = 128;
    /**
     * Receives kept posted: the two sides alternate, so at most two messages are ever outstanding; the rest is
     * slack.
     */
    private static final int SLOTS = 8;

    private final Host host;
    private final Endpoint e;
    /** Notified by the receive CQ's handler when a message (or a flush) arrives; guards {@link #arrived}. */
    private final Object signal = new Object();
    private boolean arrived;
    private final WorkCompletion wc = new WorkCompletion();
    private final RecvWorkRequest[] recvs = new RecvWorkRequest[SLOTS];
    private final SendWorkRequest send;
    /** The peer's answer that {@link #sendAnswered} found after a flush: what {@link #poll()} returns next. */
    private PerfWire.Control answered;
    private Connection c;

    /**
     * @param host this process's host, whose network runs while a message is awaited
     * @param dev the device
     * @param link the port, path MTU and GID index
     */
    PerfControl(Host host, Device dev, LinkOptions link) {
        this.host = host;
        this.e = new Endpoint(dev, (SLOTS + 1) * SLOT, 2 * SLOTS + 8, link, cq -> {
            synchronized (signal) {
                arrived = true;
                signal.notifyAll();
            }
        });
        for (int i = 0; i < SLOTS; i++) {
            recvs[i] = new RecvWorkRequest(1).wrId(i).sge(e.mr, i * SLOT, SLOT);
        }
        send = new SendWorkRequest(1).wrId(SLOTS).opcode(WrOpcode.SEND).sge(e.mr, SLOTS * SLOT, 0);
    }

    private QpOptions qpOptions() {
        return e.qpOptions(QpType.RC, 4, SLOTS, SigType.SIGNAL_ALL_WR);
    }

    private void postReceives(QueuePair qp) {
        for (RecvWorkRequest r : recvs) {
            qp.postRecv(r);
        }
    }

    /**
     * Client: connects to the server.
     *
     * @param connector makes the connection
     * @param server the server's address
     * @param port its CM port
     * @param table the REQ's private data
     * @return the connection (its REP's private data is the server's region)
     */
    Connection connect(Connector connector, InetAddress server, int port, byte[] table) {
        c = connector.connect(e, qpOptions(), server, port, table);
        postReceives(c.qp()); // the server speaks only when spoken to: nothing can arrive before these
        return c;
    }

    /**
     * Server: accepts the client's first request.
     *
     * @param connector makes the connection
     * @param req the request
     * @param region the REP's private data
     * @return the connection
     */
    Connection accept(Connector connector, ConnectRequest req, byte[] region) {
        c = connector.accept(e, req, qpOptions(), region, this::postReceives);
        return c;
    }

    /** @return the connection */
    Connection connection() {
        return c;
    }

    /**
     * Sends a message and waits until the peer's QP has acknowledged it.
     *
     * @param m the message
     */
    void send(PerfWire.Control m) {
        byte[] b = m.encode();
        e.buffer.put(SLOTS * SLOT, b);
        send.sge(0).length(b.length);
        c.qp().postSend(send);
        Completions.await(host, e.sendCq, wc, "a control message to the peer", "");
    }

    /**
     * Sends a message the peer answers with {@code answer} and may then disconnect after: if the peer's
     * acknowledgement was lost and its disconnect flushed the message here (or the retries ran out while the peer was
     * already gone), its answer having arrived shows the message did (the answer is then the next {@link #poll()});
     * any other failure is one.
     *
     * @param m the message
     * @param answer what the peer says once it has {@code m}
     */
    void sendAnswered(PerfWire.Control m, PerfWire.Step answer) {
        byte[] b = m.encode();
        e.buffer.put(SLOTS * SLOT, b);
        send.sge(0).length(b.length);
        c.qp().postSend(send);
        Completions.take(host, e.sendCq, wc, "a control message to the peer", "");
        WcStatus status = wc.status();
        if (status == WcStatus.SUCCESS) {
            return;
        }
        long wrId = wc.wrId();
        // flushed by the peer's disconnect, or its retries ran out because the peer had left before its disconnect
        // came (a lost DREQ is resent after a second, the retries end after half of one)
        if (status == WcStatus.WR_FLUSH_ERR || status == WcStatus.RETRY_EXC_ERR) {
            PerfWire.Control next = poll();
            if (next != null && next.step() == answer) {
                answered = next;
                return;
            }
        }
        throw new IllegalStateException("a control message to the peer failed: " + status + " (wr_id " + wrId + ")");
    }

    /**
     * @return the next message from the peer, or null if none has arrived or the connection is going down (its
     *         receives flush); allocates only when one has arrived
     * @throws IllegalStateException if a receive failed otherwise or the message is none of rvt perf's
     */
    PerfWire.Control poll() {
        PerfWire.Control a = answered;
        if (a != null) {
            answered = null;
            return a;
        }
        if (!e.recvCq.pollCq(wc) || wc.status() == WcStatus.WR_FLUSH_ERR) {
            return null;
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("the control connection to the peer is down (" + wc.status() + ")");
        }
        int slot = (int) wc.wrId();
        byte[] b = new byte[wc.byteLen()];
        e.buffer.get(slot * SLOT, b);
        c.qp().postRecv(recvs[slot]);
        PerfWire.Control m = PerfWire.Control.decode(b);
        if (m == null) {
            throw new IllegalStateException("the peer sent a control message that is not rvt perf's");
        }
        return m;
    }

    /**
     * Waits for the peer's next message, which must be {@code step}.
     *
     * @param step what it must say
     * @param patienceNanos how long to wait
     * @param idle runs whenever nothing has arrived (moves this side's traffic or the network on)
     * @return the message
     * @throws IllegalStateException if another arrives, the peer disconnects, or none comes in time
     */
    PerfWire.Control await(PerfWire.Step step, long patienceNanos, Runnable idle) {
        long deadline = System.nanoTime() + patienceNanos;
        int spins = 0;
        while (true) {
            PerfWire.Control m = poll();
            if (m != null) {
                if (m.step() != step) {
                    throw new IllegalStateException("the peer said " + m.step() + " where " + step + " was due");
                }
                return m;
            }
            idle.run();
            if ((++spins & 0x3FF) == 0) {
                if (c.disconnected().isDone()) {
                    throw new IllegalStateException("the peer disconnected before its " + step + " message");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no " + step + " message from the peer within "
                            + patienceNanos / 1_000_000_000L + " s");
                }
            }
        }
    }

    /**
     * Waits without spinning until something is on the receive CQ (a message, or the flush of a disconnect), or
     * {@code maxNanos} pass: for a side with nothing else to do, so that its CPU goes to the HCA's threads.
     *
     * @param maxNanos the longest wait
     */
    void block(long maxNanos) {
        synchronized (signal) {
            arrived = false;
        }
        if (e.recvCq.reqNotifyCq(CqNotify.mask(CqNotify.NEXT_COMP, CqNotify.REPORT_MISSED_EVENTS)) != 0) {
            return; // not empty: nothing to wait for
        }
        long deadline = System.nanoTime() + maxNanos;
        synchronized (signal) {
            while (!arrived) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    signal.wait(left / 1_000_000 + 1);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the peer", x);
                }
            }
        }
    }

    /** Closes the connection and its endpoint. */
    @Override
    public void close() {
        e.close();
    }
}
