package io.rvt.it.app;

import io.rvt.api.AsyncEvent;
import io.rvt.api.Device;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.VerbsException;
import io.rvt.api.WcStatus;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WrOpcode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * RC traffic that runs on its own thread until the devices go away: a window of SENDs in flight from a to b, with
 * more receives posted on b than sends in flight (so b always has posted receives for a flush to complete), every
 * received message checked. It records every completion status and every asynchronous event, so that a test can
 * remove the devices in the middle and see what the application saw: {@code DEVICE_REMOVAL}, then
 * {@code WR_FLUSH_ERR} for what was still posted. The thread ends when every posted request has completed after an
 * error, or when {@link #stop()} is called; it then drops its references to the devices.
 *
 * <p>Exactly-once: each wr_id (sends and receives numbered from 0 in post order) must complete once; a completion of
 * a wr_id that was never accepted, or a second one, is recorded as a violation ({@code violations} in the report),
 * and so is every accepted request still without its completion when the traffic ends after the error.
 */
public final class BackgroundTraffic {
    private static final int MESSAGE = 64;
    private static final int SEND_WINDOW = 8;
    private static final int RECV_DEPTH = 32;
    private static final long DRAIN_DEADLINE_NS = 30_000_000_000L;

    private final Map<String, Long> statuses = new TreeMap<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final java.util.BitSet sendsCompleted = new java.util.BitSet();
    private final java.util.BitSet recvsCompleted = new java.util.BitSet();
    private final Thread thread;
    private volatile boolean stopRequested;
    private volatile boolean running = true;
    private volatile String failure;

    /**
     * Starts the traffic thread ({@code rvt-it-traffic}), which connects a QP on {@code a} to one on {@code b}
     * through rvt-cm, runs the traffic and disconnects. It connects itself rather than the caller's thread: a
     * driver may keep per-thread scratch of the thread that posts (driver-sim does), and the caller's thread may
     * outlive the driver.
     *
     * @param a the sender's device
     * @param b the receiver's device
     */
    public BackgroundTraffic(Device a, Device b) {
        a.setAsyncEventHandler(this::onEvent);
        b.setAsyncEventHandler(this::onEvent);
        thread = new Thread(() -> run(a, b), "rvt-it-traffic"); // the devices stay local to the thread
        thread.setDaemon(true);
        thread.start();
    }

    private void onEvent(AsyncEvent e) {
        events.add(e.type().name() + " " + (e.device() != null ? e.device().name() : "?"));
    }

    /**
     * @return what happened so far: {@code running} (Boolean), {@code statuses} (Map of completion status name to
     *         count, sends and receives together), {@code events} (List of "TYPE device"), {@code failure} (String, or
     *         absent: why the traffic stopped other than by errors the devices reported)
     */
    public synchronized Map<String, Object> report() {
        Map<String, Object> r = new TreeMap<>();
        r.put("running", running);
        r.put("statuses", new TreeMap<>(statuses));
        r.put("events", List.copyOf(events));
        r.put("violations", List.copyOf(violations));
        if (failure != null) {
            r.put("failure", failure);
        }
        return r;
    }

    /** Asks the thread to stop posting and waits for it to end. */
    public void stop() {
        stopRequested = true;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void count(WcStatus s) {
        statuses.merge(s.name(), 1L, Long::sum);
    }

    /** Records the completion of {@code wrId} of a queue that accepted {@code accepted} requests so far. */
    private void completed(String queue, java.util.BitSet done, long wrId, long accepted, WcStatus status) {
        if (wrId < 0 || wrId >= accepted) {
            violations.add(queue + " wr_id " + wrId + " completed (" + status + ") but was never accepted (accepted "
                    + accepted + ")");
        } else if (done.get((int) wrId)) {
            violations.add(queue + " wr_id " + wrId + " completed twice (now " + status + ")");
        } else {
            done.set((int) wrId);
        }
    }

    private void run(Device from, Device to) {
        RcEndpoint a = null;
        RcEndpoint b = null;
        SendWorkRequest send = new SendWorkRequest(1).opcode(WrOpcode.SEND);
        RecvWorkRequest recv = new RecvWorkRequest(1);
        WorkCompletion wc = new WorkCompletion();
        long sent = 0;
        long sendsDone = 0;
        long received = 0;
        long recvsPosted = 0;
        long recvsDone = 0;
        boolean errors = false;
        long drainDeadline = 0;
        ByteBuffer sendSlots = ByteBuffer.allocateDirect(SEND_WINDOW * MESSAGE);
        try {
            RcEndpoint[] ends = RcEndpoint.connected(from, to, RECV_DEPTH * MESSAGE, RECV_DEPTH);
            a = ends[0];
            b = ends[1];
            io.rvt.api.MemoryRegion sendMr = a.pd.regMr(sendSlots, 0);
            while (true) {
                boolean progress = false;
                if (!errors && !stopRequested) {
                    try {
                        while (recvsPosted - recvsDone < RECV_DEPTH) {
                            int slot = (int) (recvsPosted % RECV_DEPTH);
                            b.qp.postRecv(recv.wrId(recvsPosted).sge(b.mr, slot * MESSAGE, MESSAGE));
                            recvsPosted++;
                        }
                        // Sends in flight stay well below the receives posted: no RNR, and always receives to flush.
                        while (sent - sendsDone < SEND_WINDOW && recvsPosted - sent > SEND_WINDOW) {
                            int slot = (int) (sent % SEND_WINDOW);
                            RcTraffic.fill(sendSlots.slice(slot * MESSAGE, MESSAGE), MESSAGE, sent);
                            a.qp.postSend(send.wrId(sent).sge(sendMr, slot * MESSAGE, MESSAGE));
                            sent++;
                        }
                    } catch (VerbsException gone) {
                        errors = true; // ENODEV: the device was removed between two posts
                    }
                }
                while (a.sendCq.pollCq(wc)) {
                    progress = true;
                    sendsDone++;
                    count(wc.status());
                    completed("send", sendsCompleted, wc.wrId(), sent, wc.status());
                    errors |= wc.status() != WcStatus.SUCCESS;
                }
                while (b.recvCq.pollCq(wc)) {
                    progress = true;
                    recvsDone++;
                    count(wc.status());
                    completed("recv", recvsCompleted, wc.wrId(), recvsPosted, wc.status());
                    if (wc.status() == WcStatus.SUCCESS) {
                        int slot = (int) (wc.wrId() % RECV_DEPTH);
                        RcTraffic.check(b.buffer.slice(slot * MESSAGE, MESSAGE), MESSAGE, received++);
                    } else {
                        errors = true;
                    }
                }
                if (errors || stopRequested) {
                    if (sendsCompleted.cardinality() == sent && recvsCompleted.cardinality() == recvsPosted) {
                        break;
                    }
                    if (stopRequested && !errors) {
                        break; // a clean stop: the devices still hold the posted receives
                    }
                    if (drainDeadline == 0) {
                        drainDeadline = System.nanoTime() + DRAIN_DEADLINE_NS;
                    } else if (System.nanoTime() - drainDeadline > 0) {
                        failure = (sent - sendsCompleted.cardinality()) + " sends and "
                                + (recvsPosted - recvsCompleted.cardinality())
                                + " receives never completed after the error";
                        violations.add(failure);
                        break;
                    }
                }
                if (!progress) {
                    LockSupport.parkNanos(20_000); // idle: leave the core to the fabric's threads
                }
            }
        } catch (RuntimeException e) {
            failure = e.toString();
        } finally {
            try {
                if (a != null) {
                    a.release(); // the CM handles too: a CM holds its device until the last handle goes
                    b.release();
                }
            } catch (RuntimeException e) {
                failure = failure != null ? failure : "releasing the connection: " + e;
            }
            running = false;
        }
    }
}
