/**
 * The driver conformance suite. Subclass each abstract {@code *ConformanceTest} class once in a driver's test sources
 * and list in its static {@code variants()} the {@link io.rvt.testkit.Variant}s (each a name and how to make a
 * {@link io.rvt.testkit.DriverFixture}) to run every case on; a feature the driver lacks is a JUnit assumption with a
 * reason. 2.0.0: the variants list replaced the abstract {@code createFixture}. 3.0.0: the kit no longer needs rvt-cm: a pair
 * is connected by the fixture's {@link io.rvt.testkit.PairConnector} (directly by {@code modify_qp} unless the
 * fixture gives another), {@code DriverFixture.cmConfig()} and the CM helpers of {@code Verbs} went to rvt-cm's and
 * driver-jni's tests, and {@code Endpoint.connection} is the connector's handle.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("3.0.0")
package io.rvt.testkit;
