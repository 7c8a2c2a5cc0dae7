package io.rvt.driver.sim.fabric;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A precise fault for tests: decides, for each frame the switch hands to a receiving link, whether the fabric loses
 * it ({@link Fabric#dropRule(DropRule)}). Where {@link FaultConfig}'s seeded loss strikes frames at random, a rule can
 * strike exactly one packet (say, the ACK of one message), so a race that loss only sometimes provokes happens in
 * every run. A dropped frame counts as {@link DropCause#RULE}.
 *
 * <p>Called on the fabric's delivery thread (the event loop's driving thread in deterministic mode), one frame at a
 * time, before the link's seeded faults; a rule that keeps state needs no locking of its own for that state. While
 * a rule is set, senders build no {@link Frame#burst bursts}, so the rule sees every packet.
 */
@ConsumerType
@FunctionalInterface
public interface DropRule {
    /**
     * @param from the sending port
     * @param to the port the frame is about to be delivered to (each member of a multicast group in turn)
     * @param frame the frame's bytes, read-only, from position 0 to its length (headers as the sender wrote them:
     *              for driver-sim's HCAs the LRH, GRH and BTH from index 0, 8 and 48)
     * @return true to lose the frame
     */
    boolean drops(FabricPort from, FabricPort to, ByteBuffer frame);
}
