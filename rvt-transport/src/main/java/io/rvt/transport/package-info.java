/**
 * The IBTA transport engines a packet driver reuses, as hfi1 and qib reuse rdmavt: {@code Transport} is the one
 * entry point (one per device) that a driver's send engine asks for the next packet of a QP
 * ({@code Transport.makePacket}) and its receive path hands parsed packets to ({@code Transport.receive}); the
 * per-transport engines live in {@code io.rvt.transport.rc}, {@code .uc} and {@code .ud}.
 *
 * <p>What a driver still does itself: the link-level headers (LRH/GRH for native InfiniBand, IP/UDP for RoCEv2) from
 * the {@code TxInfo} that {@code makePacket} fills, the ICRC, the QP lookup by destination QPN, scheduling the send
 * engine ({@code RvtDriver.scheduleSend}) and calling the transport from its rdmavt callbacks ({@code qpPrivAlloc},
 * {@code notifyQpReset}, {@code notifyErrorQp}, {@code notifyRestartRc}, {@code setupWqe}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package io.rvt.transport;
