package io.rvt.api.spi;

import io.rvt.api.CompletionQueue;
import io.rvt.api.WorkCompletion;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The driver's view of a completion queue ({@code struct rvt_cq}).
 */
@ProviderType
public interface DriverCq extends CompletionQueue {
    /**
     * Mirrors {@code rvt_cq_enter}: copies {@code wc} into the ring and runs the armed notification. Any thread; takes
     * the CQ lock. Prefer {@link DriverQp#sendCq} / {@link DriverQp#recvCq}, which also move the QP to the error
     * state on overflow.
     *
     * @param wc the completion, copied
     * @param solicited whether the completion is solicited (the packet's SE bit)
     * @return false if the CQ is (or was ever) full: the completion was dropped and {@code CQ_ERR} raised
     */
    boolean enter(WorkCompletion wc, boolean solicited);

    /** @return mirrors {@code ib_cq_head}: the ring's head index (debug; may be stale) */
    int head();

    /** @return mirrors {@code ib_cq_tail}: the ring's tail index (debug; may be stale) */
    int tail();
}
