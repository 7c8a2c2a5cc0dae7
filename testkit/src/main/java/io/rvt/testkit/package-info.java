/**
 * The driver conformance suite. Subclass each abstract {@code *ConformanceTest} class once in a driver's test sources
 * and list in its static {@code variants()} the {@link io.rvt.testkit.Variant}s (each a name and how to make a
 * {@link io.rvt.testkit.DriverFixture}) to run every case on; a feature the driver lacks is a JUnit assumption with a
 * reason. 2.0.0: the variants list replaced the abstract {@code createFixture}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package io.rvt.testkit;
