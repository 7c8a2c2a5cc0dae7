/**
 * What the RC, UC and UD engines ({@code io.rvt.transport.rc}, {@code .uc}, {@code .ud}) and a packet driver share,
 * below both: the packet the transport writes for a driver's send engine ({@code TxInfo}, {@code Packets}), what a
 * driver knows of a packet it received ({@code RxInfo}, and the receive batch that takes the ACKs its packets owe,
 * {@code RxInfo.Batch}), a QP's protocol state (the QP's {@code priv}, {@code QpProtocolState}, which each engine
 * subclasses, with the driver's own per-QP state under its {@code DriverStateKey}), the engine interface ({@code ProtocolEngine}), the request writer the engines share
 * ({@code RequestBuilder}) and how the transport reaches its driver ({@code SendScheduler}, rdmavt's
 * {@code schedule_send}). {@code io.rvt.transport}'s {@code Transport} makes the engines and dispatches to them;
 * nothing here names that package or the engines, so the transport's packages form no cycle.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package io.rvt.transport.engine;
