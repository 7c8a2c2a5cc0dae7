package io.rvt.driver.sim.fabric;

/** The kind of a {@link Trace} record; what its {@code detail} field holds is given per kind. */
public enum TraceKind {
    /** A frame entered the fabric from its sender; detail 0. */
    SEND,
    /** A frame was handed to the receiving port's handler; detail 0. */
    DELIVER,
    /** A frame was dropped; detail is the {@link DropCause} ordinal. */
    DROP,
    /** The duplication fault copied a frame; detail is the copy's sequence number. */
    DUPLICATE,
    /** The corruption fault flipped a bit; detail is the bit index: byte {@code detail / 8}, bit {@code detail % 8}. */
    CORRUPT,
    /** The reordering fault delayed a frame; detail is the extra delay in ns. */
    DELAY,
    /** A port's link went down; src is the port's LID. */
    LINK_DOWN,
    /** A port's link came up; src is the port's LID. */
    LINK_UP
}
