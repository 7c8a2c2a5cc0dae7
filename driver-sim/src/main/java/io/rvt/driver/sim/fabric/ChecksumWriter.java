package io.rvt.driver.sim.fabric;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Writes a frame's checksum into its bytes on demand: the sender's half of checksum offload ({@link
 * Frame#sealDeferred(ChecksumWriter)}). Called at most once per frame (and once per copy the fabric makes), on the
 * thread that owns the frame at that moment (the fabric's delivery thread, or the receiving handler's); it must not
 * change anything but the checksum bytes.
 */
@ConsumerType
@FunctionalInterface
public interface ChecksumWriter {
    /**
     * @param frame the frame, with its bytes and length as the sender left them
     */
    void write(Frame frame);
}
