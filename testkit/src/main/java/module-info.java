/**
 * The rvt driver conformance suite: abstract JUnit 5 tests of verbs and transport behaviour. A driver's own test
 * sources subclass them and supply a {@link io.rvt.testkit.DriverFixture}.
 */
module io.rvt.testkit {
    requires transitive io.rvt.api;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    requires org.assertj.core;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.rvt.testkit;
    opens io.rvt.testkit to org.junit.platform.commons;
}
