package io.rvt.testkit;

import io.rvt.api.CompletionQueue;
import io.rvt.api.Errno;
import io.rvt.api.MemoryRegion;
import io.rvt.api.QueuePair;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One round of a device-removal stress test: a posting thread sends single SENDs (each with a receive posted on the
 * receiver first) and RDMA WRITEs, a polling thread polls both CQs, and once a given number of sends completed the
 * caller's thread removes the device(s). Every accepted work request, send or receive, must complete exactly once,
 * nothing may complete that was not outstanding, and a post the device refused must complete nothing
 * ({@link WrLedger}). The poster keeps at most 12 sends and 12 receives outstanding, so the CQs never overflow.
 */
public final class RemovalStress {
    private static final int WINDOW = 12;

    /**
     * The two QPs of a connected RC pair and what the traffic needs.
     *
     * @param sender the QP that posts sends
     * @param receiver its peer, which posts receives
     * @param sendCq the sender's send CQ
     * @param recvCq the receiver's receive CQ
     * @param src a region of the sender's PD (8 bytes are used)
     * @param dst a region of the receiver's PD with REMOTE_WRITE and LOCAL_WRITE (8 bytes are used)
     */
    public record Pair(QueuePair sender, QueuePair receiver, CompletionQueue sendCq, CompletionQueue recvCq,
            MemoryRegion src, MemoryRegion dst) {
    }

    private RemovalStress() {
    }

    /**
     * Runs one round.
     *
     * @param p the pair
     * @param pump run by the poster after each post and while it waits (a driver whose engine the caller runs), or a
     *             no-op
     * @param completionsBeforeRemoval how many send completions to wait for before removing
     * @param remove removes the device(s), on the caller's thread
     * @param deadlineSeconds the round's deadline (generous: only a hung round meets it)
     * @return null if the round kept exactly-once, else what went wrong
     * @throws InterruptedException if interrupted while joining the threads
     */
    public static String round(Pair p, Runnable pump, int completionsBeforeRemoval, Runnable remove,
            long deadlineSeconds) throws InterruptedException {
        WrLedger sends = new WrLedger();
        WrLedger recvs = new WrLedger();
        AtomicBoolean posterDone = new AtomicBoolean();
        AtomicReference<Throwable> crash = new AtomicReference<>();
        Thread poster = new Thread(() -> {
            try {
                post(p, pump, sends, recvs);
            } catch (Throwable t) {
                crash.compareAndSet(null, t);
            } finally {
                posterDone.set(true);
            }
        }, "stress-poster");
        Thread poller = new Thread(() -> {
            WorkCompletion[] wcs = new WorkCompletion[8];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    drain(p.sendCq(), wcs, sends);
                    drain(p.recvCq(), wcs, recvs);
                }
            } catch (Throwable t) {
                crash.compareAndSet(null, t);
            }
        }, "stress-poller");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(deadlineSeconds);
        poster.start();
        poller.start();
        while (sends.completions() < completionsBeforeRemoval && crash.get() == null && !posterDone.get()
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        remove.run();
        poster.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        boolean posterStopped = posterDone.get();
        // Quiesce: every outstanding WR completes (or the deadline passes), then the poller stops.
        while ((sends.pendingCount() > 0 || recvs.pendingCount() > 0) && crash.get() == null
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        poller.interrupt();
        poller.join(10_000);
        WorkCompletion[] one = {new WorkCompletion()};
        drain(p.sendCq(), one, sends);
        drain(p.recvCq(), one, recvs);
        if (crash.get() != null) {
            StringWriter w = new StringWriter();
            crash.get().printStackTrace(new PrintWriter(w));
            return "a thread crashed: " + w;
        }
        if (!posterStopped) {
            return "the poster never saw ENODEV";
        }
        List<String> v = new ArrayList<>(sends.violations());
        recvs.violations().forEach(s -> v.add("recv " + s));
        if (!v.isEmpty()) {
            return "violations " + v;
        }
        if (!sends.outstanding().isEmpty() || !recvs.outstanding().isEmpty()) {
            return "accepted and never completed: sends " + sends.outstanding() + ", recvs " + recvs.outstanding();
        }
        return null;
    }

    private static void post(Pair p, Runnable pump, WrLedger sends, WrLedger recvs) {
        SendWorkRequest swr = new SendWorkRequest(1);
        RecvWorkRequest rwr = new RecvWorkRequest(1);
        for (long n = 0; ; n++) {
            while (sends.pendingCount() >= WINDOW || recvs.pendingCount() >= WINDOW) {
                pump.run();
                Thread.onSpinWait(); // flow control: the poller frees CQ room
            }
            boolean send = (n & 1) == 0;
            if (send) {
                long rid = recvs.reserve();
                try {
                    p.receiver().postRecv(rwr.wrId(rid).sge(p.dst(), 0, 8));
                } catch (WorkRequestException e) {
                    recvs.rejected(rid);
                    if (e.errno() == Errno.ENODEV) {
                        return;
                    }
                }
            }
            long id = sends.reserve();
            try {
                p.sender().postSend(swr.wrId(id).opcode(send ? WrOpcode.SEND : WrOpcode.RDMA_WRITE)
                        .sge(p.src(), 0, 8).remoteAddr(p.dst().addr()).rkey(p.dst().rkey()));
            } catch (WorkRequestException e) {
                sends.rejected(id);
                if (e.errno() == Errno.ENODEV) {
                    return;
                }
            }
            pump.run();
        }
    }

    private static void drain(CompletionQueue cq, WorkCompletion[] wcs, WrLedger ledger) {
        int n;
        while ((n = cq.pollCq(wcs, wcs.length)) > 0) {
            for (int i = 0; i < n; i++) {
                ledger.completed(wcs[i].wrId(), wcs[i].status());
            }
        }
    }
}
