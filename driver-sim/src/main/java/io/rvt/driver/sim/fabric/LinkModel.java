package io.rvt.driver.sim.fabric;

/**
 * The timing of a port's link to the switch: bandwidth and one-way latency. A frame crosses two links, its sender's
 * and its receiver's (a store-and-forward switch with no switching delay):
 *
 * <pre>
 * txStart   = max(sendTime, sender link free)        txEnd   = txStart + ser(len, sender)
 * atSwitch  = txEnd + sender latency
 * outStart  = max(atSwitch, receiver link free)      outEnd  = outStart + ser(len, receiver)
 * arrival   = outEnd + receiver latency (+ any reordering delay)
 * ser(len, link) = ceil(len * 8 * 1e9 / bandwidth) ns, 0 for an unlimited link
 * </pre>
 *
 * Each link direction serialises one frame at a time, so back-to-back frames queue behind each other.
 *
 * @param bandwidthBitsPerSecond the bandwidth in bits/s; 0 means unlimited (no serialisation delay)
 * @param latencyNanos the one-way propagation delay in ns, at least 0
 */
public record LinkModel(long bandwidthBitsPerSecond, long latencyNanos) {
    /** An unlimited link with no latency: frames arrive at the time they are sent. */
    public static final LinkModel IDEAL = new LinkModel(0, 0);

    /**
     * Checks the values.
     *
     * @param bandwidthBitsPerSecond the bandwidth in bits/s, 0 for unlimited
     * @param latencyNanos the one-way latency in ns
     * @throws IllegalArgumentException if either is negative
     */
    public LinkModel {
        if (bandwidthBitsPerSecond < 0) {
            throw new IllegalArgumentException("bandwidthBitsPerSecond=" + bandwidthBitsPerSecond + " is negative");
        }
        if (latencyNanos < 0) {
            throw new IllegalArgumentException("latencyNanos=" + latencyNanos + " is negative");
        }
    }

    /**
     * @param bandwidthBitsPerSecond the bandwidth in bits/s; 0 means unlimited
     * @param latencyNanos the one-way latency in ns
     * @return the model
     */
    public static LinkModel of(long bandwidthBitsPerSecond, long latencyNanos) {
        return new LinkModel(bandwidthBitsPerSecond, latencyNanos);
    }

    /**
     * The time to put {@code bytes} on this link.
     *
     * @param bytes the frame length
     * @return {@code ceil(bytes * 8 * 1e9 / bandwidth)} ns, 0 for an unlimited link
     */
    public long serializationNanos(int bytes) {
        if (bandwidthBitsPerSecond == 0 || bytes <= 0) {
            return 0;
        }
        long bitNanos = bytes * 8_000_000_000L;
        return (bitNanos + bandwidthBitsPerSecond - 1) / bandwidthBitsPerSecond;
    }
}
