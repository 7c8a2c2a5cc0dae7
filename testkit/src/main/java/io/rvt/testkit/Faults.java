package io.rvt.testkit;

/**
 * Faults to inject into a fixture's network, as probabilities per packet.
 *
 * @param loss probability that a packet is dropped
 * @param duplicate probability that a packet is delivered twice
 * @param reorder probability that a packet is delayed behind later ones
 * @param corrupt probability that one bit of a packet is flipped (the receiver's ICRC drops it)
 */
public record Faults(double loss, double duplicate, double reorder, double corrupt) {
    /** No faults. */
    public static final Faults NONE = new Faults(0, 0, 0, 0);

    /**
     * @param p probability of each fault kind
     * @return loss, duplication, reordering and corruption, each with probability {@code p}
     */
    public static Faults all(double p) {
        return new Faults(p, p, p, p);
    }
}
