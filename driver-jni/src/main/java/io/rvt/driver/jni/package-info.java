/**
 * The RoCEv2 driver: {@link io.rvt.driver.jni.JniDriver} (configured with {@link io.rvt.driver.jni.JniDriver#builder()}
 * or, under OSGi, through {@link io.rvt.driver.jni.JniDriverComponent}), the choice of socket layer ({@link
 * io.rvt.driver.jni.Wire}) and the errors the socket layer reports ({@link io.rvt.driver.jni.UdpException}).
 *
 * <h2>Addresses</h2>
 * Each configured IP address is a port with one GID: the address itself as an IPv6 address, IPv4 as the IPv4-mapped
 * {@code ::ffff:a.b.c.d} (what Linux RoCE drivers put in their GID tables for RoCEv2). RoCE has no LIDs: ports report
 * LID 0 and address handles must be global (a GRH with the peer's GID); a packet for a non-global address is dropped
 * and counted. The destination of a packet is its DGID as an IP address, and the UDP port from the peer table ({@link
 * io.rvt.driver.jni.JniDriverBuilder#peer}, {@link io.rvt.driver.jni.JniDriver#addPeer}) or else the default peer port
 * (4791, the RoCEv2 port). A peer table is what lets two devices on one host (one IP address, two UDP ports) talk: each
 * device maps the other's GID to the other's port.
 *
 * <h2>UDP source port</h2>
 * RoCEv2 senders pick the source port from a flow hash so that ECMP spreads QPs over paths. As Linux rxe does, a flow's
 * source port is derived from its QP numbers (or the path's flow label, when it has one) in 0xC000-0xFFFF ({@link
 * io.rvt.driver.jni.JniDriver#flowSourcePort}); with an ordinary socket the source port is the socket's bound port, so
 * a port opens a sending socket bound to a flow's port when that flow first sends ({@code SO_REUSEPORT}: other HCAs of
 * the host may send from the same port), up to {@link io.rvt.driver.jni.JniDriverBuilder#sourcePorts(int)} sockets
 * (default {@value io.rvt.driver.jni.JniDriverBuilder#DEFAULT_SOURCE_PORTS}); flows beyond share them. {@code
 * sourcePorts(1)} sends everything from the port's own socket (4791 by default). Replies always go to the peer's
 * listening port, as RoCEv2 wants; the ICRC covers the real source port either way.
 *
 * <h2>ICRC</h2>
 * Written on every packet as hardware expects it: over IPv6 with the real addresses and ports; over IPv4 with
 * Identification 0 and DF set, which is what the kernel sends for an unconnected socket with {@code IP_MTU_DISCOVER =
 * IP_PMTUDISC_DO} (the native layer sets it). Checked on receive over IPv6 always; over IPv4 (a UDP socket does not
 * show the sender's IP header) under ID 0 and, failing that, under the one non-zero Identification the ICRC solves
 * for, as Linux numbers it ({@link io.rvt.driver.jni.JniDriverBuilder#solveIpv4Id(boolean)}: 16 of the 32 check
 * bits, counted as {@code RX_IPV4_ID_SOLVED}), unless {@link io.rvt.driver.jni.JniDriverBuilder#checkIpv4Icrc(boolean)}
 * turns the check off. A packet that fails is dropped and counted ({@link io.rvt.driver.jni.PortStatistics#icrcErrors},
 * {@code RX_MALFORMED}).
 *
 * <h2>Multicast</h2>
 * Without a subnet manager or IP multicast routing, a UD packet to a multicast GID is sent as one unicast copy to every
 * peer in the peer table, each with the ICRC the real multicast packet would carry (destination address: the MGID;
 * IPv4: the group address of an IPv4-mapped MGID, else {@code 239.x.y.z} from the MGID's low 24 bits). The receiver
 * finds the group by that ICRC among the groups its port joined.
 *
 * <h2>Zero copy</h2>
 * On the native wire the transport references a packet's payload in registered memory instead of copying it ({@link
 * io.rvt.transport.engine.TxInfo#payloadByReference}): the datagram is gathered by {@code sendmmsg} from the transport headers
 * in the batch slot, up to four slices of the regions' direct buffers, and the pad and ICRC in the slot; the ICRC reads
 * the payload where it lies ({@link io.rvt.driver.jni.PortStatistics#zeroCopyPackets}). Payloads under 512 bytes,
 * heap-buffer regions, more slices, packets that complete their WQE at once (UD, a UC message's last) and the JDK wire
 * copy.

 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package io.rvt.driver.jni;
