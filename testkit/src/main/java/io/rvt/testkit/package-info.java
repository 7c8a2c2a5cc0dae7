/**
 * The driver conformance suite. Subclass the abstract {@code *ConformanceTest} classes in a driver's test sources and
 * return a {@link io.rvt.testkit.DriverFixture}; a feature the driver lacks is a JUnit assumption with a reason.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package io.rvt.testkit;
