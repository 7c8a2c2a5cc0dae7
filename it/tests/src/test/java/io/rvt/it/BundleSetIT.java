package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Felix these tests boot is the bundle set the build resolved with its services counted: {@link Felix}'s
 * bundles and driver-jni are the {@code -runbundles} of {@code it-bundles.bndrun}, which bnd-resolver-maven-plugin
 * checks before the tests run.
 */
class BundleSetIT {
    /** A {@code -runbundles} entry's symbolic name. */
    private static final Pattern ENTRY = Pattern.compile("([A-Za-z0-9_.-]+);version=");

    @Test
    void shouldInstallExactlyTheBundlesTheResolverChose() throws IOException {
        String bndrun = Files.readString(Path.of("it-bundles.bndrun")).replace("\\\n", "");
        Set<String> resolved = new TreeSet<>();
        for (String line : bndrun.split("\n")) {
            if (line.startsWith("-runbundles:")) {
                Matcher m = ENTRY.matcher(line);
                while (m.find()) {
                    resolved.add(m.group(1));
                }
            }
        }
        List<String> jars = new ArrayList<>(Felix.BASE_BUNDLES);
        jars.add(Felix.DRIVER_JNI_JAR);
        Set<String> installed = new TreeSet<>();
        for (String jar : jars) {
            try (JarFile f = new JarFile(Felix.jar(jar).toFile())) {
                installed.add(f.getManifest().getMainAttributes().getValue("Bundle-SymbolicName").split(";")[0]);
            }
        }
        assertThat(installed).as("Felix.BASE_BUNDLES and driver-jni, by symbolic name").isEqualTo(resolved);
    }
}
