package io.rvt.testkit;

/** Features the conformance suite needs and some drivers lack. */
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
    DETERMINISTIC
}
