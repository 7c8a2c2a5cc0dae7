package io.rvt.cm;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives {@link CmEvent}s. Called on the CM's thread (the GSI completion thread or a timer thread; in a
 * deterministic simulation, the fabric's event loop), never with a CM lock held, one event at a time per connection
 * manager. It must not block: it may call any method of the API, but must not wait for a connection to come up.
 */
@ConsumerType
@FunctionalInterface
public interface CmEventListener {
    /**
     * @param event what happened
     */
    void onEvent(CmEvent event);
}
