/**
 * The libibverbs examples' ping-pong on the wire (libibverbs/examples/rc_pingpong.c, uc_pingpong.c, ud_pingpong.c):
 * the TCP exchange of {@link io.rvt.launcher.pingpong.PingpongDest}s, the QP set-up of {@code pp_connect_ctx} and the
 * examples' completion loop, on rvt's verbs API alone, so that {@code rvt pingpong} runs against
 * {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong} and {@code ibv_ud_pingpong} and against itself. Internal to the
 * launcher (not exported).
 */
package io.rvt.launcher.pingpong;
