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
 *
 * <h2>Where a QP's protocol state lives</h2>
 * In one place per field, with the lock that guards it named on the class that holds it:
 * <ul>
 * <li>everything rdmavt, qib and hfi1 keep in {@code struct rvt_qp} is the QP's, reached through the SPI:
 * {@code qp.sendQueue()} (the ring, {@code s_head}/{@code s_last}, reserved WQEs), {@code qp.requester()} (the send
 * engine's {@code s_*} fields: cursors, PSNs, {@code s_len}, {@code s_rdma_read_len}, retry counters, credits and
 * timers; {@code sendLock}), {@code qp.responder()} (the {@code r_*} fields: PSN, MSN, NAK state, receive cursor,
 * {@code r_rcv_len}, {@code r_ack_psn}; {@code recvLock}) and {@code qp.ackQueue()} (RC's {@code s_ack_queue} and
 * the response builder's cursor: where the receive path hands responses to the send engine);</li>
 * <li>the transport's {@code QpProtocolState} subclasses (the QP's {@code priv}) hold only what is an engine's own:
 * RC's highest PSN sent and ACK coalescing count ({@code RcState}), UC's saved receive position ({@code UcState}),
 * and the scratch completions and SGEs that keep the engines free of allocation.</li>
 * </ul>
 * So "where is the requester's PSN" has one answer, {@code qp.requester().psn}, and a field the protocol needs from
 * {@code struct rvt_qp} is added to the SPI's state class, not to a getter/setter pair of {@code DriverQp}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package io.rvt.transport;
