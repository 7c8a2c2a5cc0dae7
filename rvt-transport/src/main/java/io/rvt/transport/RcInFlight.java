package io.rvt.transport;

/**
 * A port's budget of RC PSNs in flight and how it is used ({@link Transport#limitRcInFlight}, an rvt extension):
 * PSNs a requester has sent and not had acknowledged, RDMA READ responses asked for included, summed over the port's
 * RC QPs.
 *
 * @param budget the most PSNs the port's QPs may have in flight (each QP may always have 8)
 * @param inFlight PSNs in flight now
 * @param peak the most that were in flight at once since the budget was set
 * @param waits how often a requester stopped at its window or at the budget until an ACK came
 */
public record RcInFlight(int budget, int inFlight, int peak, long waits) {
}
