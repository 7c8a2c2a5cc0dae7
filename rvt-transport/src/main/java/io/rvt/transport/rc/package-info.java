/**
 * The Reliable Connection engines: the requester ({@code RcRequester}: segmentation by path MTU, PSNs, ACK requests,
 * credits, fences and the RDMA READ/atomic depth, go-back-N retry), the requester's response handling
 * ({@code RcAckProcessor}: ACK/NAK, RNR, RDMA READ responses, atomic ACKs, in-order completion), the responder
 * ({@code RcResponder}: PSN checks, duplicates, receive WQEs, RDMA WRITE/READ/atomics with key checks, NAKs) and the
 * responder's packets ({@code RcResponseBuilder}: coalesced ACKs, RDMA READ responses and atomic ACKs from the ack
 * queue). {@code RcEngine} is their entry for {@code io.rvt.transport.Transport}; {@code RcState} the per-QP state.
 * They follow qib's and hfi1's {@code rc.c}, minus what only hardware needs (send DMA tracking, TID RDMA, OPFN).
 */
package io.rvt.transport.rc;
