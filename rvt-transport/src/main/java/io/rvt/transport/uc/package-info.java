/**
 * The Unreliable Connection engine ({@code UcEngine}) and its per-QP state ({@code UcState}): segmentation without
 * ACKs, completion when the last packet is built, and a responder that drops the rest of a message after a PSN gap
 * and reuses the partly filled receive WQE, as qib's and hfi1's {@code uc.c} do.
 */
package io.rvt.transport.uc;
