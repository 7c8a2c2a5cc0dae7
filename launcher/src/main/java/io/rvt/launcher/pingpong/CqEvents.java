package io.rvt.launcher.pingpong;

import io.rvt.api.CompletionHandler;
import io.rvt.api.CompletionQueue;
import io.rvt.api.CqNotify;
import io.rvt.api.WorkCompletion;
import java.util.concurrent.locks.LockSupport;

/**
 * The examples' {@code -e}: wait for a CQ's completion event instead of polling it ({@code ibv_req_notify_cq},
 * {@code ibv_get_cq_event}). Give it to the CQ as its handler when creating it; {@link #take} arms the CQ, polls once
 * for what came before the arming, and parks until the handler says a completion came.
 */
public final class CqEvents implements CompletionHandler {
    /** The longest park between looks at the flag (the handler unparks sooner). */
    private static final long PARK_NANOS = 1_000_000;
    private volatile boolean notified;
    private volatile Thread waiter;

    @Override
    public void onCompletion(CompletionQueue cq) {
        notified = true;
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * @param cq the CQ this handler was given to
     * @param wc filled with the completion
     * @param deadline {@link System#nanoTime()} by which one must have come
     * @param progress run between parks (moves a network the host runs on this thread)
     * @return true if a completion came, false at the deadline
     */
    boolean take(CompletionQueue cq, WorkCompletion wc, long deadline, Runnable progress) {
        waiter = Thread.currentThread();
        while (true) {
            notified = false;
            cq.reqNotifyCq(CqNotify.NEXT_COMP.bit());
            if (cq.pollCq(wc)) {
                return true;
            }
            while (!notified) {
                if (System.nanoTime() - deadline > 0) {
                    return cq.pollCq(wc);
                }
                progress.run();
                LockSupport.parkNanos(this, PARK_NANOS);
            }
            if (cq.pollCq(wc)) {
                return true;
            }
        }
    }
}
