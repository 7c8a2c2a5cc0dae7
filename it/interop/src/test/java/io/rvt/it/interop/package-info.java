/**
 * rvt against Linux's RDMA stack: the Linux peer (a Debian guest with Soft-RoCE in QEMU, {@code linux-peer/}) and the
 * interop matrix run against it.
 */
package io.rvt.it.interop;
