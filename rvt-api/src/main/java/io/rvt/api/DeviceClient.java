package io.rvt.api;

import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Software above the verbs that is told, synchronously, when a device is being removed: the in-JVM counterpart of a
 * kernel {@code struct ib_client} and its {@code remove} callback (rvt-cm's CM is one, as the kernel's
 * {@code cm_remove_one} is ib_cm's). Register it with {@link Device#registerClient}; the removal
 * ({@code DeviceRegistry.remove}, {@code DeviceRegistry.close}, or under OSGi the driver service going away) calls
 * {@link #remove} before it returns, as {@code ib_unregister_device} calls every client's {@code remove}.
 *
 * <p><b>Order of a removal</b> (rdmavt's {@code rvt_unregister_device} calls {@code ib_unregister_device}, whose
 * {@code disable_device} runs the clients before rdmavt tears its QPs down; rvt keeps that order):
 * <ol>
 * <li>the device takes no more clients ({@link Device#registerClient} fails with {@code ENODEV});</li>
 * <li>every client's {@link #remove} runs, the most recently registered first (ib_core's LIFO order), on the thread
 *     that removes the device. The device is still alive: its QPs are in the states they were in, nothing is
 *     flushed yet, and verbs work, so a client can end what it owns (destroy its QPs, CQs and regions);</li>
 * <li>every QP still there moves to the error state and its posted work flushes with {@code WR_FLUSH_ERR};</li>
 * <li>the device's event handler ({@link Device#setAsyncEventHandler}) gets {@link AsyncEventType#DEVICE_REMOVAL};
 *     </li>
 * <li>{@link Device#isAlive()} turns false and the driver is told to stop.</li>
 * </ol>
 * The event and the client differ in who they serve: the event handler is one per device and belongs to the
 * application, and it comes after the flush (the QPs are in error, the flushed completions wait in the CQs); clients
 * are any number (libraries such as rvt-cm, and applications), and they run before the flush.
 *
 * <p>A client that throws does not stop the removal: rvt-core logs the exception (WARNING), counts it and goes on
 * with the next client. A client must not wait for anything the removing thread would have to do (it runs on that
 * thread), and it must not remove the device again.
 *
 * <p>Under OSGi a device is a service: rvt-core's removal runs the clients while the {@link Device} service is still
 * registered, and withdraws the service afterwards, so a component's unbind of that service comes after its
 * client's {@code remove}.
 */
@ConsumerType
@FunctionalInterface
public interface DeviceClient {
    /**
     * The device is being removed (the kernel's {@code ib_client.remove}, called from {@code ib_unregister_device}).
     * Called at most once per registration, on the removing thread, before the device's QPs are moved to the error
     * state.
     *
     * @param device the device being removed
     */
    void remove(Device device);

    /**
     * A client's registration on one device ({@code ib_unregister_client} for that device when closed).
     */
    @ProviderType
    interface Registration extends AutoCloseable {
        /**
         * Deregisters the client: once this returns its {@link DeviceClient#remove} will not be called. If a removal
         * on another thread has already started calling it, that call may still be running. Idempotent; closing from
         * within the client's own {@code remove} is allowed.
         */
        @Override
        void close();
    }
}
