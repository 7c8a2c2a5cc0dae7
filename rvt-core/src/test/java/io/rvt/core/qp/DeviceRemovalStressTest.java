package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Errno;
import io.rvt.api.RecvWorkRequest;
import io.rvt.api.SendWorkRequest;
import io.rvt.api.WorkCompletion;
import io.rvt.api.WorkRequestException;
import io.rvt.api.WrOpcode;
import io.rvt.core.LoopbackTestDriver;
import io.rvt.core.cq.RvtCq;
import io.rvt.core.mr.RvtMr;
import io.rvt.testkit.WrLedger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A device removed 100 times in the middle of loopback traffic (a driver whose {@code do_send} runs
 * {@code rvt_ruc_loopback} on the poster's thread): one thread posts single SENDs (each with a receive posted first)
 * and RDMA WRITEs, another polls both CQs, and the test thread removes the device after a random number of
 * completions. Every accepted work request, send or receive, completes exactly once; nothing completes that was not
 * outstanding; a refused post completes nothing.
 */
class DeviceRemovalStressTest {
    private static final int ROUNDS = 100;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Test
    void shouldCompleteEveryWorkRequestExactlyOnceWhenTheDeviceIsRemovedMidTraffic() throws Exception {
        SplittableRandom rnd = new SplittableRandom(12);
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            String f = round(rnd.nextInt(1, 60));
            if (f != null) {
                failures.add("round " + round + ": " + f);
            }
        }
        assertThat(failures).isEmpty();
    }

    /** @return null if the round kept exactly-once, else what went wrong */
    private static String round(int completionsBeforeRemoval) throws Exception {
        LoopbackTestDriver driver = new LoopbackTestDriver();
        QpEnv env = new QpEnv(driver);
        RvtQp a = env.rc();
        RvtQp b = env.rc();
        env.connect(a, b);
        RvtMr src = env.reg(64);
        RvtMr dst = env.reg(64);
        WrLedger sends = new WrLedger();
        WrLedger recvs = new WrLedger();
        AtomicBoolean posterDone = new AtomicBoolean();
        AtomicReference<Throwable> crash = new AtomicReference<>();

        Thread poster = new Thread(() -> {
            SendWorkRequest swr = new SendWorkRequest(1);
            RecvWorkRequest rwr = new RecvWorkRequest(1);
            long n = 0;
            try {
                while (true) {
                    if (sends.pendingCount() >= 12 || recvs.pendingCount() >= 12) {
                        driver.drain();
                        Thread.onSpinWait(); // flow control: the poller frees CQ room
                        continue;
                    }
                    boolean send = (n++ & 1) == 0;
                    if (send) {
                        long rid = recvs.reserve();
                        rwr.wrId(rid).sge(dst, 0, 8);
                        try {
                            b.postRecv(rwr);
                        } catch (WorkRequestException e) {
                            recvs.rejected(rid);
                            if (e.errno() == Errno.ENODEV) {
                                return;
                            }
                        }
                    }
                    long id = sends.reserve();
                    swr.wrId(id).opcode(send ? WrOpcode.SEND : WrOpcode.RDMA_WRITE).sge(src, 0, 8)
                            .remoteAddr(dst.addr()).rkey(dst.rkey());
                    try {
                        a.postSend(swr);
                    } catch (WorkRequestException e) {
                        sends.rejected(id);
                        if (e.errno() == Errno.ENODEV) {
                            return;
                        }
                    }
                    driver.drain();
                }
            } catch (Throwable t) {
                crash.set(t);
            } finally {
                posterDone.set(true);
            }
        }, "poster");
        Thread poller = new Thread(() -> {
            WorkCompletion[] wcs = new WorkCompletion[8];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new WorkCompletion();
            }
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    drainInto(env.scq, wcs, sends);
                    drainInto(env.rcq, wcs, recvs);
                }
            } catch (Throwable t) {
                crash.set(t);
            }
        }, "poller");
        poster.start();
        poller.start();
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (sends.completions() < completionsBeforeRemoval && crash.get() == null
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        env.dev.unregister();
        poster.join(TimeUnit.NANOSECONDS.toMillis(Math.max(1, deadline - System.nanoTime())));
        boolean posterStopped = posterDone.get();
        // Quiesce: wait until every outstanding WR completed (or the deadline), then stop the poller.
        while ((sends.pendingCount() > 0 || recvs.pendingCount() > 0) && System.nanoTime() < deadline
                && crash.get() == null) {
            Thread.onSpinWait();
        }
        poller.interrupt();
        poller.join();
        drainInto(env.scq, new WorkCompletion[] {new WorkCompletion()}, sends);
        drainInto(env.rcq, new WorkCompletion[] {new WorkCompletion()}, recvs);
        if (crash.get() != null) {
            return "a thread crashed: " + stackOf(crash.get());
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

    private static void drainInto(RvtCq cq, WorkCompletion[] wcs, WrLedger ledger) {
        int n;
        while ((n = cq.pollCq(wcs, wcs.length)) > 0) {
            for (int i = 0; i < n; i++) {
                ledger.completed(wcs[i].wrId(), wcs[i].status());
            }
        }
    }

    private static String stackOf(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
