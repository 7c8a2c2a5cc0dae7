package io.rvt.testkit;

/**
 * Features the conformance suite needs and some drivers lack. A case that needs one checks it
 * ({@code ConformanceTest.require}) and carries the JUnit tag of the feature's name (e.g. {@code FAULT_INJECTION}), so
 * that a driver that lacks it can leave those cases out of its run (surefire's {@code excludedGroups}) rather than
 * have them skipped.
 */
public enum Feature {
    /** Unreliable connected QPs. */
    UC,
    /** Unreliable datagram QPs. */
    UD,
    /** Compare-and-swap and fetch-and-add. */
    ATOMICS,
    /** Shared receive queues. */
    SRQ,
    /** UD multicast: attaching QPs to a group and delivering a datagram to every attached QP. */
    MULTICAST,
    /** Faults injected into the network ({@link DriverFixture#faults}, {@link DriverFixture#partition}). */
    FAULT_INJECTION,
    /** A seeded, single-threaded run that can be replayed. */
    DETERMINISTIC,
    /**
     * {@link DriverFixture#open}{@code (n)} gives n distinct devices; a single-device fixture (a driver with one
     * device and no wire) gives its one device n times, its QPs reaching each other through the device's loopback.
     */
    SEPARATE_DEVICES
}
