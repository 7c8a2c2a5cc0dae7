/**
 * The Unreliable Datagram engine ({@code UdEngine}) and its per-QP state ({@code UdState}), for UD, GSI and SMI QPs:
 * one packet per message with a DETH, Q_Key and P_Key checks, the 40-byte GRH area of receive buffers, multicast
 * destinations, completion on send, as qib's and hfi1's {@code ud.c} do.
 */
package io.rvt.transport.ud;
