package io.rvt.launcher;

import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.WorkCompletion;
import java.util.List;

/**
 * Empty completion queues whose polls run a host's progress hooks ({@link Host#progress()}): rvt-core calls the
 * driver's progress from a poll that finds its CQ empty. One CQ per HCA when each HCA has an engine of its own
 * (driver-jni's port engines), one for all when one engine runs every HCA (driver-sim's fabric). Polling them all
 * lets a command's thread that waits for a completion on one HCA run the other's engine too: in a one-process RDMA
 * WRITE, READ or atomic stream nobody polls the responder's CQs, and driver-jni's responder then ran only on its
 * backstop thread, which a busy 2-core machine kept off the cores for 30-450 ms at a time, each stall an RC retry
 * timeout (see docs/benchmarks.md). Nothing is ever posted to them; they allocate nothing when polled.
 */
final class ProgressPolls {
    private final CompletionQueue[] cqs;
    private final WorkCompletion wc = new WorkCompletion();

    /**
     * @param devices the host's HCAs
     * @param enginePerDevice true if each HCA has its own engine (one CQ each), false if the first HCA's progress runs
     *        them all (one CQ)
     */
    ProgressPolls(List<Device> devices, boolean enginePerDevice) {
        int n = enginePerDevice ? devices.size() : Math.min(1, devices.size());
        cqs = new CompletionQueue[n];
        for (int i = 0; i < n; i++) {
            cqs[i] = devices.get(i).createCq(1, 0, null, null);
        }
    }

    /** Polls every CQ once: each empty poll runs its HCA's progress hook on the calling thread. */
    void poll() {
        for (CompletionQueue cq : cqs) {
            cq.pollCq(wc);
        }
    }

    /**
     * A host's {@link Host#progress()}: polls {@code polls} if there are any, then spins once.
     *
     * @param polls the host's progress polls, or null
     */
    static void progress(ProgressPolls polls) {
        if (polls != null) {
            polls.poll();
        }
        Thread.onSpinWait();
    }
}
