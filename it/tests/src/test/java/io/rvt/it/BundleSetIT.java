package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;
import io.rvt.launcher.RunBundles;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * The Felix these tests boot is the bundle set the build resolved with its services counted: {@link Felix} installs
 * the {@code -runbundles} of {@code it-bundles.bndrun} (which bnd-resolver-maven-plugin checks before the tests run)
 * less driver-jni, read from the file, and the tests that want driver-jni install it by jar name.
 */
class BundleSetIT {
    @Test
    void shouldInstallExactlyTheBundlesTheResolverChose() throws Exception {
        Set<String> resolved = new TreeSet<>(RunBundles.read(Felix.BNDRUN).keySet());
        assertThat(resolved).as("%s -runbundles", Felix.BNDRUN).contains("org.apache.felix.scr", "io.rvt.core",
                Felix.DRIVER_SIM, Felix.DRIVER_JNI);

        try (Felix felix = new Felix()) {
            Set<String> started = new TreeSet<>();
            for (Bundle b : felix.bundles()) {
                started.add(b.getSymbolicName());
            }
            felix.install(Felix.DRIVER_JNI_JAR);
            Set<String> installed = new TreeSet<>();
            for (Bundle b : felix.bundles()) {
                installed.add(b.getSymbolicName());
            }

            assertThat(started).as("the bundles a launch installs").doesNotContain(Felix.DRIVER_JNI);
            assertThat(installed).as("the bundles a launch installs, and driver-jni").isEqualTo(resolved);
            assertThat(Felix.BASE_BUNDLES.indexOf("org.apache.felix.scr"))
                    .as("libraries start before rvt's bundles: %s", Felix.BASE_BUNDLES)
                    .isLessThan(Felix.BASE_BUNDLES.indexOf("io.rvt.core"));
        }
    }
}
