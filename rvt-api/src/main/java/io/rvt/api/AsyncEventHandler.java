package io.rvt.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives asynchronous events ({@code ib_event}): of a device (set with {@link Device#setAsyncEventHandler}), of a
 * QP ({@link QpInitAttr#eventHandler}), of an SRQ ({@link SrqInitAttr#eventHandler}) or of a CQ
 * ({@link Device#createCq}). Called on an rvt or driver thread, never with a verbs lock held; it must not block for
 * long.
 */
@ConsumerType
@FunctionalInterface
public interface AsyncEventHandler {
    /**
     * @param event the event
     */
    void onEvent(AsyncEvent event);
}
