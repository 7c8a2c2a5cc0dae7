package io.rvt.api.spi.engine;

import io.rvt.api.spi.DriverQp;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Mirrors {@code setup_wqe} of {@code struct rvt_driver_provided}, a hook for a driver built on the engine state
 * (rvt-transport's {@code TransportDriver}): a driver whose class implements it is called for every WQE being posted;
 * one that does not is not (rdmavt's NULL pointer).
 */
@ConsumerType
public interface WqeSetup {
    /**
     * Validates or adjusts a WQE being posted, after SGE validation, UD address caching and PSN/SSN assignment, before
     * the slot is published. May change {@code psn}/{@code lpsn}/{@code opcode}/{@code priv}, and may decide through
     * {@code callSend} whether the post runs {@code doSend} (true) or schedules. Only {@code postLock} held.
     *
     * @param qp the QP
     * @param wqe the WQE being built
     * @param callSend the decision, changeable
     * @return 0 or positive to accept, a negative errno to fail the post with it
     */
    int setupWqe(DriverQp qp, SendWqe wqe, CallSend callSend);
}
