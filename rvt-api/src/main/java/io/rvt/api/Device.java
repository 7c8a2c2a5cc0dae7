package io.rvt.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An RDMA device ({@code struct ib_device}, backed by rdmavt's {@code struct rvt_dev_info}): one driver instance with
 * one or more ports. The entry point of the verbs API: query the device and its ports, allocate protection domains
 * and completion queues, receive asynchronous events.
 *
 * <p>Under OSGi a device is a service; on the module or class path it is opened through the device registry. Every
 * method may be called from any thread.
 */
@ProviderType
public interface Device {
    /**
     * @return the device name ({@code ibv_get_device_name}), e.g. {@code sim0}: the driver's own name, or its
     *         pattern ({@code sim%d}) with the lowest index that was free when it registered
     */
    String name();

    /** @return the name the driver gave ({@code RvtDriver.name()}: a fixed name, or the pattern it was made from) */
    String driverName();

    /**
     * The device attributes ({@code ib_query_device}): limits enforced by the verbs and identity.
     *
     * @return the attributes (immutable)
     */
    DeviceAttributes queryDevice();

    /** @return the number of ports ({@code phys_port_cnt}); ports are numbered from 1 */
    int portCount();

    /**
     * Fills {@code out} with the port's attributes ({@code ib_query_port}; rdmavt: {@code rvt_query_port}, which sets
     * the SM fields, capability mask and counters, and asks the driver's {@code query_port_state} for the rest).
     *
     * @param portNum the port, 1-based
     * @param out filled in place
     * @return {@code out}
     * @throws VerbsException EINVAL if the port does not exist
     */
    PortAttr queryPort(int portNum, PortAttr out);

    /**
     * Modifies a port's capability mask, shuts it down, or resets its Q_Key violation counter
     * ({@code ib_modify_port}; rdmavt: {@code rvt_modify_port}).
     *
     * @param portNum the port, 1-based
     * @param flags {@link PortModifyFlag} bits
     * @param setPortCapMask capability bits to set
     * @param clrPortCapMask capability bits to clear
     * @throws VerbsException EINVAL for a bad port; the driver's error for a failed shutdown
     */
    void modifyPort(int portNum, int flags, int setPortCapMask, int clrPortCapMask);

    /**
     * A GID of a port ({@code ib_query_gid}; rdmavt: {@code rvt_query_gid}: the port's GID prefix and the driver's
     * {@code get_guid_be} for the interface id).
     *
     * @param portNum the port, 1-based
     * @param index the GID table index
     * @return the GID
     * @throws VerbsException EINVAL for a bad port or index
     */
    Gid queryGid(int portNum, int index);

    /**
     * A P_Key table entry ({@code ib_query_pkey}; rdmavt: {@code rvt_query_pkey}).
     *
     * @param portNum the port, 1-based
     * @param index the table index, below {@code npkeys}
     * @return the P_Key (16 bits)
     * @throws VerbsException EINVAL for a bad port or index
     */
    int queryPkey(int portNum, int index);

    /**
     * Allocates a protection domain ({@code ibv_alloc_pd}; rdmavt: {@code rvt_alloc_pd}).
     *
     * @return the new PD
     * @throws VerbsException ENOMEM when {@code max_pd} PDs exist
     */
    ProtectionDomain allocPd();

    /**
     * Creates a completion queue ({@code ibv_create_cq}; rdmavt: {@code rvt_create_cq}).
     *
     * @param cqe the number of completions it holds, 1..{@code max_cqe}
     * @param compVector the completion vector; the driver's {@code comp_vect_cpu_lookup} maps it to the executor
     *                   that runs {@code handler} (negative values become 0, others are taken modulo the number of
     *                   vectors)
     * @param handler called when an armed CQ gets a completion, or null
     * @param eventHandler receives {@link AsyncEventType#CQ_ERR} on overflow, or null
     * @return the new CQ
     * @throws VerbsException EINVAL for a bad size, ENOMEM when {@code max_cq} CQs exist
     */
    CompletionQueue createCq(int cqe, int compVector, CompletionHandler handler, AsyncEventHandler eventHandler);

    /**
     * Creates a completion queue on a completion channel ({@code ibv_create_cq} with its {@code channel} argument;
     * rdmavt: {@code rvt_create_cq}, with uverbs' {@code ib_uverbs_comp_handler} as the CQ's {@code comp_handler}).
     * Each armed notification that fires queues one event on {@code channel}; a {@code handler}, if also given, is
     * called as well, as by {@link #createCq(int, int, CompletionHandler, AsyncEventHandler)}.
     *
     * @param cqe the number of completions it holds, 1..{@code max_cqe}
     * @param compVector the completion vector, as for {@link #createCq(int, int, CompletionHandler, AsyncEventHandler)}
     * @param channel the channel the CQ's events go to, or null for none
     * @param handler called when an armed CQ gets a completion, or null
     * @param eventHandler receives {@link AsyncEventType#CQ_ERR} on overflow, or null
     * @return the new CQ
     * @throws VerbsException EINVAL for a bad size; EBADF for a channel of another device or a destroyed one (as
     *         libibverbs, whose kernel refuses another context's channel descriptor); ENOMEM when {@code max_cq}
     *         CQs exist
     */
    CompletionQueue createCq(int cqe, int compVector, CompletionChannel channel, CompletionHandler handler,
            AsyncEventHandler eventHandler);

    /**
     * Creates a completion event channel ({@code ibv_create_comp_channel}) for completion queues of this device.
     *
     * @return the new channel
     * @throws VerbsException ENODEV if the device was removed
     */
    CompletionChannel createCompChannel();

    /**
     * Sets the handler of device and port events, and of QP/CQ/SRQ events whose object has no handler of its own
     * ({@code ib_register_event_handler}).
     *
     * @param handler the handler, or null to remove it
     */
    void setAsyncEventHandler(AsyncEventHandler handler);

    /**
     * @param portNum the port, 1-based
     * @param counter which counter
     * @return its current value
     * @throws VerbsException EINVAL if the port does not exist
     */
    long portCounter(int portNum, PortCounter counter);

    /**
     * @param counter which counter
     * @return its current value
     */
    long deviceCounter(DeviceCounter counter);

    /**
     * @return true while the device is usable; false once it was removed (its driver went away). After removal every
     *         verb that creates, modifies or posts fails with {@code ENODEV}; polling completion queues (the flushed
     *         completions are still there), queries of counters and teardown (destroy, deregister, deallocate,
     *         detach) keep working, so that applications can clean up
     */
    boolean isAlive();

    /**
     * Registers a client to be told when this device is removed ({@code ib_register_client}, for one device; the
     * kernel's call registers a client with every device and calls its {@code add} for each). The client's
     * {@link DeviceClient#remove} runs once, synchronously, when the device is removed, before its QPs are moved to
     * the error state and before the {@link AsyncEventType#DEVICE_REMOVAL} event (the order is in
     * {@link DeviceClient}'s Javadoc). A client may be registered more than once; each registration is called once.
     *
     * @param client the client
     * @return its registration; close it to deregister ({@code ib_unregister_client})
     * @throws VerbsException ENODEV, naming the device, if the device is removed or its removal has begun (a client
     *         registered then would never be called: the caller learns the device is gone instead); EINVAL if
     *         {@code client} is null
     */
    DeviceClient.Registration registerClient(DeviceClient client);
}
