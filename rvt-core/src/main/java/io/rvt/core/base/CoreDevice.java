package io.rvt.core.base;

import io.rvt.api.AsyncEvent;
import io.rvt.api.AsyncEventHandler;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.DeviceCounter;
import io.rvt.api.VerbsException;
import io.rvt.api.spi.Callback;
import io.rvt.api.spi.DriverDevice;
import io.rvt.api.spi.GidLookup;
import io.rvt.api.spi.MtuConversion;
import io.rvt.api.spi.QpPrivate;
import io.rvt.api.spi.QpQuiesce;
import io.rvt.api.spi.SendEngine;
import io.rvt.api.spi.Verb;
import java.util.concurrent.Executor;

/**
 * What every object of an rvt device needs of it ({@code struct rvt_dev_info} as the object code of rdmavt reads it):
 * liveness, the driver's declined verbs and callback groups, the object counters, event dispatch and the completion
 * executors. {@code io.rvt.core.RvtDevice} implements it; the object packages (regions, CQs, SRQs, address handles,
 * multicast, QPs) hold a device as this interface or a narrower package's extension of it, so none of them depends
 * on the device class that builds them all.
 */
public interface CoreDevice extends DriverDevice {
    /**
     * @throws VerbsException ENODEV once the device was removed
     */
    void checkAlive();

    /**
     * @param c a callback
     * @return true if the driver provides it (its group handed in, or a single optional callback)
     */
    boolean provides(Callback c);

    /** @return the driver's send engine, or null if it declined POST_SEND and MODIFY_QP and handed in none */
    SendEngine sendEngine();

    /** @return the driver's path MTU rules, or null if it declined MODIFY_QP and handed in none */
    MtuConversion mtuConversion();

    /** @return the driver's GID lookup, or null if it declined QUERY_GID and handed in none */
    GidLookup gidLookup();

    /** @return the driver's per-QP state callbacks, or null: it keeps none */
    QpPrivate qpPrivate();

    /** @return the driver's quiesce callbacks, or null: it has no wait lists nor transmit state to let go */
    QpQuiesce qpQuiesce();

    /**
     * @param verb a verb
     * @throws VerbsException EOPNOTSUPP if the driver declined it
     */
    void checkVerb(Verb verb);

    /**
     * Counts one more object of a kind if the limit allows (rdmavt's {@code n_*_allocated} checks).
     *
     * @param c the counter
     * @param max the limit
     * @return false if {@code max} objects already exist
     */
    boolean tryCount(DeviceCounter c, long max);

    /**
     * @param c the counter
     */
    void uncount(DeviceCounter c);

    /**
     * Counts an RC QP in or out and recomputes {@code busy_jiffies = n_rc_qps / 5}.
     *
     * @param delta +1 or -1
     */
    void countRcQp(int delta);

    /**
     * Delivers an event to the object's own handler, else to the device handler; a handler that throws is logged.
     *
     * @param event the event
     * @param objectHandler the QP/CQ/SRQ handler, or null
     */
    void dispatch(AsyncEvent event, AsyncEventHandler objectHandler);

    /**
     * @param cpu the index from {@code comp_vect_cpu_lookup}
     * @return the executor for completion handlers of a CQ whose vector maps to {@code cpu}
     */
    Executor completionExecutor(int cpu);

    /** @return the device attributes in effect */
    DeviceAttributes props();
}
