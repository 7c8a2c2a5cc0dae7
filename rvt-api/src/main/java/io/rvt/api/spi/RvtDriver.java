package io.rvt.api.spi;

import io.rvt.api.AhAttr;
import io.rvt.api.QpAttr;
import io.rvt.api.QpType;
import java.util.Set;
import java.util.concurrent.Executor;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a driver gives rvt-core: the Java mirror of {@code struct rvt_driver_provided} (the callbacks), plus its
 * name, its {@link DriverParams} ({@code struct rvt_driver_params}) and its {@link OperationTable}
 * ({@code post_parms}, {@code wc_opcode}). A driver ships as an OSGi service or a {@code ServiceLoader} provider of
 * this interface; rvt-core validates it and builds one device around each instance.
 *
 * <h2>Which callbacks a driver provides</h2>
 * Each C function pointer has one Java method; a NULL pointer is a group not handed in, never a stub:
 * <ul>
 * <li>Callbacks a verb needs come in groups, interfaces the driver hands rvt-core or leaves null:
 * {@link SendEngine} ({@link #sendEngine()}), {@link MtuConversion}, {@link PortQuery}, {@link PortModify},
 * {@link GidLookup}. Registration refuses a driver that leaves out a group a verb needs
 * ({@link Verb#requiredCallbacks()}), naming the verb and the callback, e.g. {@code driver 'x': POST_SEND needs callback doSend (do_send)}, unless the
 * driver declines the verb in {@link #unsupportedVerbs()}. Each accessor's default hands in this driver when its
 * class implements the group, and null otherwise: a driver implements the interface, or returns another object.</li>
 * <li>Per-QP state ({@link QpPrivate}) and the QP's release from wait lists and transmit state ({@link QpQuiesce})
 * are groups too, which rdmavt requires; a driver that has neither leaves them null and rvt-core skips them.</li>
 * <li>Single optional callbacks are default methods here that do what rdmavt does when the pointer is NULL.
 * rdmavt's {@code get_pci_dev} (the device of its log lines) and {@code free_all_qps} (a count of the driver's own
 * QPs at unregistration) have no counterpart: rvt-core logs the device's name and counts QPs in its own table.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * Each method says who calls it and with which QP locks held ({@code recvLock} = {@code r_lock}, {@code postLock} =
 * {@code s_hlock}, {@code sendLock} = {@code s_lock}). A callback must not take a QP lock its caller already
 * holds, nor one that comes earlier in the order {@code recvLock → postLock → sendLock}.
 */
@ConsumerType
public interface RvtDriver {
    /**
     * Returned by {@link #allocQpn} when the driver lets rvt-core allocate (the default: rdmavt's allocator runs when
     * {@code alloc_qpn} is NULL).
     */
    int USE_CORE_QPN_ALLOCATOR = Integer.MIN_VALUE;

    // ------------------------------------------------------------------ identity and parameters

    /**
     * The name of the device, as a driver gives it to {@code ib_register_device} (rdmavt: {@code rvt_set_ibdev_name}):
     * a fixed name ({@code hca-a}), which registration refuses with {@code ENFILE} while another device has it, or a
     * pattern with one {@code %d} ({@code sim%d}), for which rvt-core picks the lowest index no device of that
     * pattern has ({@code sim0}, {@code sim1}, ...; a removed device's index is free again). Read at registration;
     * also used in logs and registration errors. At most 63 characters, no white space, no {@code /}.
     *
     * @return the device name or name pattern
     */
    String name();

    /**
     * @return the device's parameters ({@code struct rvt_driver_params}); read once, at registration
     */
    DriverParams params();

    /**
     * @return the post-send operation table ({@code rdi->post_parms}) with its completion opcodes
     *         ({@code rdi->wc_opcode}); read once, at registration
     */
    OperationTable postParms();

    /**
     * @return verbs this driver declines (their callbacks are then not required and the verb fails with
     *         {@code EOPNOTSUPP}); {@link Verb#MISC} and {@link Verb#QP_INIT} cannot be declined. Default: none.
     */
    default Set<Verb> unsupportedVerbs() {
        return Set.of();
    }


    /**
     * @return the timer service for the device's RC timers, or null (the default) for rvt-core's real-time one
     */
    default TimerService timerService() {
        return null;
    }

    /**
     * The executor that runs completion handlers of CQs whose vector maps to {@code cpu}
     * ({@link #compVectCpuLookup}). A simulator in deterministic mode returns one that runs tasks in its event loop.
     *
     * @param cpu the executor index from {@link #compVectCpuLookup}
     * @return the executor, or null (the default) for one of rvt-core's completion threads
     */
    default Executor completionExecutor(int cpu) {
        return null;
    }

    /**
     * The initial P_Key table of a port ({@code rvt_init_port}'s {@code pkey_table}), {@code npkeys} entries.
     *
     * @param portNum the port, 1-based
     * @return the P_Keys; default: the full-membership default P_Key 0xFFFF then zeros
     */
    default int[] initialPkeys(int portNum) {
        int[] pkeys = new int[Math.max(1, params().npkeys())];
        pkeys[0] = 0xFFFF;
        return pkeys;
    }

    /**
     * Called once the device is registered, before it is published: the driver keeps {@code device} for its receive
     * path (QP lookup), sets up its ports (LID, GID prefix) and starts its engines.
     *
     * @param device the new device
     */
    default void registered(DriverDevice device) {
    }

    /**
     * Called when the device is being removed, after every QP was moved to the error state and before tables are
     * freed: the driver stops its threads and releases every QP it retained. Afterwards rvt-core never calls
     * {@link SendEngine#scheduleSend} or {@link SendEngine#doSend} for this device (it flushes the send work still queued itself), but a
     * QP the application destroys later still reaches {@link QpQuiesce#stopSendQueue}, {@link QpQuiesce#quiesceQp},
     * {@link QpPrivate#notifyQpReset} and {@link QpPrivate#qpPrivFree}. Mirrors the driver's part of {@code rvt_unregister_device}.
     *
     * @param device the device
     */
    default void unregistering(DriverDevice device) {
    }

    // ------------------------------------------------------------------ callback groups (NULL: not provided)

    /**
     * @return the send engine ({@code schedule_send}, {@code schedule_send_no_lock}, {@code do_send}), or null; read
     *         once, at registration. Default: this driver if it implements {@link SendEngine}, else null
     */
    default SendEngine sendEngine() {
        return this instanceof SendEngine s ? s : null;
    }

    /**
     * @return the path MTU rules ({@code get_pmtu_from_attr}, {@code mtu_from_qp}, {@code mtu_to_path_mtu}), or null;
     *         read once, at registration. Default: this driver if it implements {@link MtuConversion}, else null
     */
    default MtuConversion mtuConversion() {
        return this instanceof MtuConversion m ? m : null;
    }

    /**
     * @return the port query ({@code query_port_state}), or null; read once, at registration. Default: this driver if
     *         it implements {@link PortQuery}, else null
     */
    default PortQuery portQuery() {
        return this instanceof PortQuery q ? q : null;
    }

    /**
     * @return the port changes ({@code shut_down_port}, {@code cap_mask_chg}), or null; read once, at registration.
     *         Default: this driver if it implements {@link PortModify}, else null
     */
    default PortModify portModify() {
        return this instanceof PortModify m ? m : null;
    }

    /**
     * @return the GID lookup ({@code get_guid_be}), or null; read once, at registration. Default: this driver if it
     *         implements {@link GidLookup}, else null
     */
    default GidLookup gidLookup() {
        return this instanceof GidLookup g ? g : null;
    }

    /**
     * @return the per-QP state ({@code qp_priv_alloc}, {@code qp_priv_init}, {@code qp_priv_free},
     *         {@code notify_qp_reset}, {@code notify_restart_rc}), or null for none; read once, at registration.
     *         Default: this driver if it implements {@link QpPrivate}, else null
     */
    default QpPrivate qpPrivate() {
        return this instanceof QpPrivate p ? p : null;
    }

    /**
     * @return the QP's release from wait lists and transmit state ({@code flush_qp_waiters}, {@code stop_send_queue},
     *         {@code quiesce_qp}, {@code notify_error_qp}), or null for none; read once, at registration. Default:
     *         this driver if it implements {@link QpQuiesce}, else null
     */
    default QpQuiesce qpQuiesce() {
        return this instanceof QpQuiesce q ? q : null;
    }

    // ------------------------------------------------------------------ hot path




    /** The budget rvt-core gives {@link #progress(int)} from a {@code pollCq} that found its CQ empty. */
    int POLL_BUDGET = 256;

    /** The budget rvt-core gives {@link #progress(int)} from a verb that waits for the driver's engines. */
    int WAIT_BUDGET = 256;

    /**
     * rvt extension, the progress hook (no rdmavt counterpart: a kernel driver's engines run in interrupts and
     * threads of their own; libfabric's manual progress and UCX's {@code ucp_worker_progress} are the model): runs a
     * bounded piece of the driver's engine work (receive, send drains, deferred ACKs) on the calling thread, so that
     * the thread that polls runs the network and nothing is handed between cores.
     *
     * <p>rvt-core calls it from {@code pollCq} when the CQ is empty (budget {@link #POLL_BUDGET}, then it looks
     * again) and, through {@link #progressWhileWaiting()}, from every wait a verb makes for the engines ({@code
     * destroyQp} waiting for references, {@code deregMr} waiting for in-flight work, the flush of a removed device
     * waiting for a busy engine). Any thread may call it, at any time, with no rvt lock held; at most one thread runs
     * a given engine at a time (a try-lock: the others, and a thread already inside the engine further up its stack,
     * return 0 at once). A driver whose engines also need a thread when no one calls (timers, retransmissions,
     * applications that wait on completion events) keeps a backstop that runs them only then;
     * {@link io.rvt.api.spi.agent.ProgressEngine} is both halves. Optional; the default does nothing.
     *
     * @param budget the work (packets, QPs drained) after which to return; at least one step is taken
     * @return the work done; 0 if there was none, or another thread is in the engine
     */
    default int progress(int budget) {
        return 0;
    }

    /**
     * rvt extension: called by rvt-core on a thread that waits for work the driver's engines do (see
     * {@link #progress(int)}); no QP lock held. The default runs {@code progress(WAIT_BUDGET)}.
     *
     * @return true if it did some work (rvt-core checks what it waits for and may call again), false if it had none
     *         it could do (rvt-core then blocks until its condition holds or its wait times out)
     */
    default boolean progressWhileWaiting() {
        return progress(WAIT_BUDGET) > 0;
    }

    // ------------------------------------------------------------------ QP lifecycle













    /**
     * Mirrors {@code check_modify_qp}: a driver veto on a {@code modifyQp}, right after the IBTA transition check.
     * All three locks held. Optional; default: accept.
     *
     * @param qp the QP
     * @param attr the attributes
     * @param mask the attribute mask
     * @return 0 to accept; non-zero fails the modify with {@code EINVAL}
     */
    default int checkModifyQp(DriverQp qp, QpAttr attr, int mask) {
        return 0;
    }

    /**
     * Mirrors {@code modify_qp}: driver updates after rvt applied every attribute, before the locks are dropped. All
     * three locks held. Optional; default: nothing.
     *
     * @param qp the QP
     * @param attr the attributes
     * @param mask the attribute mask
     */
    default void modifyQp(DriverQp qp, QpAttr attr, int mask) {
    }

    /**
     * Mirrors {@code alloc_qpn}: allocate a QP number instead of rvt's allocator (must also return 0/1 for SMI/GSI).
     * Called by {@code createQp}; no lock held. Optional; default {@link #USE_CORE_QPN_ALLOCATOR}.
     *
     * @param rdi the device
     * @param type the QP type
     * @param portNum the port (SMI/GSI)
     * @return the QPN, a negative errno, or {@link #USE_CORE_QPN_ALLOCATOR}
     */
    default int allocQpn(DriverDevice rdi, QpType type, int portNum) {
        return USE_CORE_QPN_ALLOCATOR;
    }

    // ------------------------------------------------------------------ ports and address handles





    /**
     * Mirrors {@code check_ah}: the driver's last word on an address (create/modify AH, modify QP AV/ALT_PATH), after
     * rvt's checks. No lock held. Optional; default: accept.
     *
     * @param rdi the device
     * @param attr the address
     * @return 0 to accept, non-zero to refuse with {@code EINVAL}
     */
    default int checkAh(DriverDevice rdi, AhAttr attr) {
        return 0;
    }

    /**
     * Mirrors {@code notify_new_ah}: set the new handle's VL and log2 path MTU ({@link DriverAh#vl(int)},
     * {@link DriverAh#logPmtu(int)}). Called at the end of {@code createAh} (not by {@code modifyAh}). Optional;
     * default: both stay 0.
     *
     * @param rdi the device
     * @param attr the address
     * @param ah the new handle
     */
    default void notifyNewAh(DriverDevice rdi, AhAttr attr, DriverAh ah) {
    }

    /**
     * An rvt extension, not in rdmavt: a UD QP of this device joined the multicast group {@code mgid}/{@code mlid}
     * ({@code attachMcast}). On InfiniBand the subnet manager programs the switches; a driver whose network has no
     * subnet manager (a simulated fabric, an IP network) joins the group here. Called after the core recorded the
     * attachment, no lock held. Optional; default: nothing.
     *
     * @param rdi the device
     * @param port the QP's port
     * @param mgid the group's GID
     * @param mlid the group's LID
     */
    default void notifyMcastAttach(DriverDevice rdi, DriverPort port, io.rvt.api.Gid mgid, int mlid) {
    }

    /**
     * An rvt extension, not in rdmavt: the last QP of this device's port left the multicast group
     * {@code mgid}/{@code mlid} ({@code detachMcast}). Called after the core removed the attachment, no lock held.
     * Optional; default: nothing.
     *
     * @param rdi the device
     * @param port the port
     * @param mgid the group's GID
     * @param mlid the group's LID
     */
    default void notifyMcastDetach(DriverDevice rdi, DriverPort port, io.rvt.api.Gid mgid, int mlid) {
    }

    /**
     * Mirrors {@code notify_create_mad_agent}: a port's SMI agent was created at registration. Optional.
     *
     * @param rdi the device
     * @param portIdx the port index, 0-based
     */
    default void notifyCreateMadAgent(DriverDevice rdi, int portIdx) {
    }

    /**
     * Mirrors {@code notify_free_mad_agent}: a port's SMI agent is being freed at unregistration. Optional.
     *
     * @param rdi the device
     * @param portIdx the port index, 0-based
     */
    default void notifyFreeMadAgent(DriverDevice rdi, int portIdx) {
    }

    /**
     * Mirrors {@code comp_vect_cpu_lookup}: the "CPU" (executor index) that runs the completion handlers of CQs
     * created on {@code compVect}. Called by {@code createCq}. Optional; default 0 (rdmavt: the first CPU of the
     * device's node).
     *
     * @param rdi the device
     * @param compVect the completion vector
     * @return an executor index, at least 0 (taken modulo the number of completion executors)
     */
    default int compVectCpuLookup(DriverDevice rdi, int compVect) {
        return 0;
    }
}
