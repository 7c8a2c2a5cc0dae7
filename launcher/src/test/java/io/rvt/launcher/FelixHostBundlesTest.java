package io.rvt.launcher;

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
 * FelixHost boots what the build resolved: the bundles it installs (its list and either driver) are the
 * {@code -runbundles} of {@code felix-host.bndrun}, which bnd-resolver-maven-plugin checks in every build, less
 * rvt-api (the system bundle exports it from the class path).
 */
class FelixHostBundlesTest {
    /** A {@code -runbundles} entry's symbolic name. */
    private static final Pattern ENTRY = Pattern.compile("([A-Za-z0-9_.-]+);version=");

    @Test
    void shouldInstallExactlyTheResolvedRunBundlesWhenBootingEitherDriver() throws IOException {
        Set<String> resolved = runBundles(Path.of("felix-host.bndrun"));
        assertThat(resolved).as("felix-host.bndrun -runbundles").contains("io.rvt.api", "org.apache.felix.scr");
        resolved.remove("io.rvt.api");

        List<String> jars = new ArrayList<>(FelixHost.BUNDLES);
        jars.add("driver-sim");
        jars.add("driver-jni");
        Set<String> installed = new TreeSet<>();
        for (String jar : jars) {
            installed.add(symbolicName(Main.bundleDir().resolve(jar + ".jar")));
        }

        assertThat(installed).isEqualTo(resolved);
    }

    private static Set<String> runBundles(Path bndrun) throws IOException {
        String text = Files.readString(bndrun).replace("\\\n", "");
        Set<String> out = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("-runbundles:")) {
                Matcher m = ENTRY.matcher(line);
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    private static String symbolicName(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            String bsn = f.getManifest().getMainAttributes().getValue("Bundle-SymbolicName");
            return bsn.split(";")[0].trim();
        }
    }
}
