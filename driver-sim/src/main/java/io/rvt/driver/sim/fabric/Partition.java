package io.rvt.driver.sim.fabric;

import java.util.BitSet;

/**
 * A cut in the fabric made by {@link Fabric#partition} or {@link Fabric#partitionOneWay}: frames from a port of one
 * side to a port of the other are dropped ({@link DropCause#PARTITION}) while it is active — both ways, or one way
 * for an asymmetric partition. {@link #heal()} ends it. Thread-safe.
 */
public final class Partition {
    private final Topology topology;
    private final BitSet from;
    private final BitSet to;
    private final boolean bidirectional;
    private final String description;
    /** Cleared by {@link #heal()}. */
    private volatile boolean active = true;

    Partition(Topology topology, BitSet from, BitSet to, boolean bidirectional, String description) {
        this.topology = topology;
        this.from = from;
        this.to = to;
        this.bidirectional = bidirectional;
        this.description = description;
    }

    /** Used by the delivery thread: the bit sets are never changed after construction. */
    boolean blocks(int srcIndex, int dstIndex) {
        return (from.get(srcIndex) && to.get(dstIndex)) || (bidirectional && to.get(srcIndex) && from.get(dstIndex));
    }

    /**
     * @param sender a sending port
     * @param receiver a receiving port
     * @return true if this partition, while active, drops frames from {@code sender} to {@code receiver}
     */
    public boolean separates(FabricPort sender, FabricPort receiver) {
        return blocks(sender.index(), receiver.index());
    }

    /** @return true if frames are dropped both ways, false for a one-way partition */
    public boolean isBidirectional() {
        return bidirectional;
    }

    /** @return true until {@link #heal()} */
    public boolean isActive() {
        return active;
    }

    /** Ends the partition: frames that reach the switch from now on pass. Idempotent. */
    public void heal() {
        if (active) {
            active = false;
            topology.heal(this);
        }
    }

    @Override
    public String toString() {
        return "Partition{" + description + (active ? "" : ", healed") + '}';
    }
}
