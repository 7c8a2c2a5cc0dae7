/**
 * rvt-cm's implementation (not exported): the per-device engine with its GSI QPs, the CM state machine of each
 * communication ID, the MAD codec, rdma_cm's IP CM header, and the shared real-time timer thread.
 */
package io.rvt.cm.impl;
