package io.rvt.testkit;

import io.rvt.api.Device;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a driver gives the conformance suite: devices that can reach each other, a way to make progress, and the
 * features it supports. One fixture serves one test method; the suite closes it afterwards.
 */
@ConsumerType
public interface DriverFixture extends AutoCloseable {
    /**
     * Opens {@code count} devices connected to one another (one port each is enough).
     *
     * @param count how many devices
     * @return the devices, registered and with active ports
     */
    Device[] open(int count);

    /**
     * Makes progress for a driver that runs on the caller's thread (a deterministic simulator advances its event
     * loop); a driver with its own threads returns at once. The suite calls it while it waits.
     *
     * @return true if anything happened
     */
    boolean progress();

    /**
     * @param feature a feature some drivers lack
     * @return true if this driver supports it
     */
    boolean supports(Feature feature);

    /**
     * Injects faults into the network between the open devices (only if {@link Feature#FAULT_INJECTION}).
     *
     * @param faults what to inject; {@link Faults#NONE} removes every fault
     */
    default void faults(Faults faults) {
        throw new UnsupportedOperationException("fault injection is not supported");
    }

    /**
     * Cuts the network between the open devices, or heals it (only if {@link Feature#FAULT_INJECTION}).
     *
     * @param cut true to partition, false to heal
     */
    default void partition(boolean cut) {
        throw new UnsupportedOperationException("partitions are not supported");
    }

    /**
     * What the fault injection did so far, for a failure message: e.g. per socket the datagrams sent, lost,
     * corrupted, held back and duplicated, so that a retry count run out tells faults that fell on one message from
     * a peer that stopped answering.
     *
     * @return a description, empty if the fixture counts nothing (driver-sim replays a seed exactly instead)
     */
    default String faultsInjected() {
        return "";
    }

    /**
     * @return a hash of everything that crossed the network so far (only if {@link Feature#DETERMINISTIC}): equal
     *         for two runs of one program with one seed
     */
    default long traceHash() {
        throw new UnsupportedOperationException("no packet trace");
    }

    /**
     * @return how {@link Verbs#connected} connects its pairs, one connector per test (closed after it): by default
     *         {@link PairConnector#direct()}, by {@code modify_qp} alone; rvt-cm's tests and the loopback driver's
     *         CM-connected variant give one that connects through the CM (a fixture whose driver runs on virtual
     *         time gives that CM the virtual time's timers)
     */
    default PairConnector connector() {
        return PairConnector.direct();
    }

    /** @return the seed of the fixture's randomness, printed by failing tests (0 if none) */
    default long seed() {
        return 0;
    }

    /** Removes the devices and stops the driver's threads. */
    @Override
    void close();
}
