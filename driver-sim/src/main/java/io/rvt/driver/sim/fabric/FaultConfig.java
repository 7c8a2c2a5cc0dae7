package io.rvt.driver.sim.fabric;

/**
 * Seeded faults applied to the frames a link delivers to its port (a port's own config, or the fabric's default).
 * For each frame that reaches the receiving link, in this order: lost with probability {@code loss}; else duplicated
 * with probability {@code duplication} (the copy follows the original on the link); then, for the frame and its copy
 * each, one random bit of the frame's bytes flipped with probability {@code corruption} (the receiver's ICRC check
 * catches it; the fabric does not check), and an extra delay uniform in [1, {@code maxReorderDelayNanos}] ns added
 * with probability {@code reorder}, so later frames overtake it. Draws come from the link's random generator, split
 * from the fabric's seed, so a run replays exactly.
 *
 * @param loss probability of losing a frame, in [0, 1]
 * @param duplication probability of delivering a frame twice, in [0, 1]
 * @param reorder probability of delaying a frame so that later ones overtake it, in [0, 1]
 * @param maxReorderDelayNanos the largest extra delay, at least 1 if {@code reorder > 0}
 * @param corruption probability of flipping one bit of a frame, in [0, 1]
 */
public record FaultConfig(double loss, double duplication, double reorder, long maxReorderDelayNanos,
        double corruption) {
    /** No faults. */
    public static final FaultConfig NONE = new FaultConfig(0, 0, 0, 0, 0);

    /**
     * Checks the values.
     *
     * @param loss probability of losing a frame
     * @param duplication probability of delivering a frame twice
     * @param reorder probability of delaying a frame
     * @param maxReorderDelayNanos the largest extra delay in ns
     * @param corruption probability of flipping one bit
     * @throws IllegalArgumentException if a probability is outside [0, 1] or the reordering delay is not positive
     *         while reordering is on
     */
    public FaultConfig {
        check("loss", loss);
        check("duplication", duplication);
        check("reorder", reorder);
        check("corruption", corruption);
        if (maxReorderDelayNanos < 0 || (reorder > 0 && maxReorderDelayNanos < 1)) {
            throw new IllegalArgumentException("maxReorderDelayNanos=" + maxReorderDelayNanos
                    + " must be at least 1 when reorder=" + reorder + " > 0 (and never negative)");
        }
    }

    private static void check(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + "=" + p + " is not a probability in [0, 1]");
        }
    }

    /** @return a builder starting from no faults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return true if no fault can happen */
    public boolean isNone() {
        return loss == 0 && duplication == 0 && reorder == 0 && corruption == 0;
    }

    /** Builds a {@link FaultConfig}; every probability starts at 0. */
    public static final class Builder {
        private double loss;
        private double duplication;
        private double reorder;
        private long maxReorderDelayNanos;
        private double corruption;

        private Builder() {
        }

        /**
         * @param probability the probability of losing a frame
         * @return this builder
         */
        public Builder loss(double probability) {
            this.loss = probability;
            return this;
        }

        /**
         * @param probability the probability of delivering a frame twice
         * @return this builder
         */
        public Builder duplication(double probability) {
            this.duplication = probability;
            return this;
        }

        /**
         * @param probability the probability of delaying a frame
         * @param maxExtraDelayNanos the largest extra delay in ns, at least 1
         * @return this builder
         */
        public Builder reorder(double probability, long maxExtraDelayNanos) {
            this.reorder = probability;
            this.maxReorderDelayNanos = maxExtraDelayNanos;
            return this;
        }

        /**
         * @param probability the probability of flipping one random bit of a frame
         * @return this builder
         */
        public Builder corruption(double probability) {
            this.corruption = probability;
            return this;
        }

        /**
         * @return the config
         * @throws IllegalArgumentException if a value is out of range
         */
        public FaultConfig build() {
            return new FaultConfig(loss, duplication, reorder, maxReorderDelayNanos, corruption);
        }
    }
}
