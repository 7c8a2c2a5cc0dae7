/**
 * The connection manager API: {@link io.rvt.cm.ConnectionManager} (one per device), {@link io.rvt.cm.Listener},
 * {@link io.rvt.cm.ConnectRequest}, {@link io.rvt.cm.Connection}, their options, events and errors.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package io.rvt.cm;
