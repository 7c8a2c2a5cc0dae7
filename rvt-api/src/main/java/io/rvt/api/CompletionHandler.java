package io.rvt.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Called when an armed completion queue gets a completion ({@code ib_cq.comp_handler}). Arm with
 * {@link CompletionQueue#reqNotifyCq(int)}; the notification is one-shot. Runs on the CQ's completion executor
 * (chosen through the driver's {@code comp_vect_cpu_lookup}); a completion added while the handler runs causes
 * another call. Poll the CQ inside the handler and re-arm it.
 */
@ConsumerType
@FunctionalInterface
public interface CompletionHandler {
    /**
     * @param cq the completion queue that has new completions
     */
    void onCompletion(CompletionQueue cq);
}
