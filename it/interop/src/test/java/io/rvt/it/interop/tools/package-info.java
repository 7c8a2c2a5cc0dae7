/**
 * rvt's counterparts of the Linux RDMA tools the interop matrix runs against: librdmacm's {@code rdma_server} and
 * {@code rdma_client}, {@code rping}, and libibverbs' {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong} and
 * {@code ibv_ud_pingpong}, each a program ({@code main}: its own driver-jni HCA on {@code --bind ADDR}, one
 * {@link io.rvt.it.interop.tools.ToolResult} line at its end, exit status 0 only if every message arrived with the
 * right bytes) on rvt's public API (rvt-api, rvt-cm, driver-jni's builder) that speaks on the wire exactly what its
 * tool speaks (read from rdma-core 44's sources). The {@code *LoopbackTest}s run each server against its client on
 * two HCAs of one JVM, so that they are known good before a Linux peer is involved.
 */
package io.rvt.it.interop.tools;
