package io.rvt.driver.sim.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * One simulated HCA: a Config Admin factory configuration of PID {@value SimHcaComponent#FACTORY_PID}. The fabric
 * settings ({@code deterministic}, {@code seed}, {@code threading}) are taken from the first HCA that names a fabric;
 * the link settings apply to this HCA's own links. Property names map to these methods the DS way: {@code latency_ns}
 * is {@code latency__ns()}.
 */
@ObjectClassDefinition(name = "rvt simulated HCA",
        description = "A simulated RDMA HCA attached to a named in-JVM fabric, with its link's timing and faults.")
public @interface SimHcaConfig {
    /** @return the device name, or a pattern with one {@code %d} (the lowest free index); empty: sim%d */
    @AttributeDefinition(description = "Device name, or a pattern such as sim%d (lowest free index); empty for "
            + "sim0, sim1, ...", required = false)
    String name() default "";

    /** @return the fabric the HCA's ports attach to; HCAs on one fabric reach each other */
    @AttributeDefinition(description = "Fabric name: HCAs on the same fabric can talk")
    String fabric() default "rvt";

    /** @return the number of ports, 1..16 */
    @AttributeDefinition(min = "1", max = "16", description = "Number of ports")
    int ports() default 1;

    /** @return the port MTU in bytes: 256, 512, 1024, 2048 or 4096 */
    @AttributeDefinition(description = "Port MTU in bytes", options = {@Option(value = "256"),
            @Option(value = "512"), @Option(value = "1024"), @Option(value = "2048"), @Option(value = "4096")})
    int mtu() default 4096;

    /** @return most QPs of the device */
    @AttributeDefinition(min = "1", description = "Most QPs (and CQs) of the device")
    int max__qp() default 16384;

    /** @return who runs the fabric and the HCAs' send engines (a fabric setting) */
    @AttributeDefinition(description = "progress: the applications' polls run the fabric and its HCAs (the progress "
            + "hook), a backstop thread when they do not; dedicated: a thread for the fabric and one per HCA; shared: "
            + "one thread runs the fabric and every HCA on it",
            options = {@Option(value = "progress"), @Option(value = "dedicated"), @Option(value = "shared")})
    String threading() default "progress";

    /** @return what the engine threads do when idle */
    @AttributeDefinition(description = "backoff: spin, yield, then park; spin: busy-spin (takes a core)",
            options = {@Option(value = "backoff"), @Option(value = "spin")})
    String idle() default "backoff";

    /** @return whether the fabric runs on virtual time, replayable from its seed (a fabric setting) */
    @AttributeDefinition(description = "Deterministic fabric on virtual time (same seed, same run)")
    boolean deterministic() default false;

    /** @return the seed of every fault draw (a fabric setting) */
    @AttributeDefinition(description = "Seed of the fault draws")
    long seed() default 0x5EED0FFAB21CL;

    /** @return the probability that a frame on this HCA's links is lost */
    @AttributeDefinition(min = "0", max = "1", description = "Loss probability per frame")
    double loss() default 0;

    /** @return the probability that a frame is delivered twice */
    @AttributeDefinition(min = "0", max = "1", description = "Duplication probability per frame")
    double duplication() default 0;

    /** @return the probability that a frame is delayed past later ones */
    @AttributeDefinition(min = "0", max = "1", description = "Reordering probability per frame")
    double reorder() default 0;

    /** @return the probability that a bit of a frame is flipped (the ICRC catches it) */
    @AttributeDefinition(min = "0", max = "1", description = "Corruption probability per frame")
    double corruption() default 0;

    /** @return the one-way latency of this HCA's links in ns */
    @AttributeDefinition(min = "0", description = "One-way link latency in ns")
    long latency__ns() default 0;

    /** @return the links' bandwidth in Gbit/s; 0: unlimited */
    @AttributeDefinition(min = "0", description = "Link bandwidth in Gbit/s, 0 for unlimited")
    double bandwidth__gbps() default 0;
}
