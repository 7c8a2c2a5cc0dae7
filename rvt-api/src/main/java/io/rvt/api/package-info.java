/**
 * The verbs API for applications: devices, protection domains, memory regions and windows, completion queues and
 * their completion channels, queue pairs, shared receive queues, address handles, reusable work requests and the
 * IBTA/ibverbs enums.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package io.rvt.api;
