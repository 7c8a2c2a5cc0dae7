package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * FelixHost boots what the build resolved: the bundles it installs (its list, derived from the packaged
 * {@code felix-host.bndrun}, and either driver) are the {@code -runbundles} of {@code felix-host.bndrun}, which
 * bnd-resolver-maven-plugin checks in every build, less rvt-api (the system bundle exports it from the class path);
 * Karaf's features list the same bundles.
 */
class FelixHostBundlesTest {
    /** A feature's {@code <bundle>mvn:group/artifact/version</bundle>}. */
    private static final Pattern FEATURE_BUNDLE = Pattern.compile(
            "<bundle[^>]*>mvn:([^/<]+)/([^/<]+)/([^/<]+)</bundle>");

    @Test
    void shouldInstallExactlyTheResolvedRunBundlesWhenBootingEitherDriver() throws IOException {
        Set<String> resolved = runBundles(Path.of("felix-host.bndrun"));
        assertThat(resolved).as("felix-host.bndrun -runbundles").contains("io.rvt.api", "org.apache.felix.scr");
        assertThat(RunBundles.packaged()).as("the felix-host.bndrun packaged with the launcher is the file's")
                .isEqualTo(RunBundles.parse(Files.readString(Path.of("felix-host.bndrun"))));
        resolved.remove("io.rvt.api");

        List<String> jars = new ArrayList<>(RunBundles.jarNames(Main.bundleDir(), FelixHost.BUNDLES));
        jars.add("driver-sim");
        jars.add("driver-jni");
        Set<String> installed = new TreeSet<>();
        for (String jar : jars) {
            installed.add(RunBundles.symbolicName(Main.bundleDir().resolve(jar + ".jar")));
        }

        assertThat(installed).isEqualTo(resolved);
        assertThat(FelixHost.BUNDLES).as("libraries start before rvt's bundles").endsWith("io.rvt.core",
                "io.rvt.transport");
    }

    /**
     * Karaf's features install what FelixHost boots: the bundles of the features rvt, rvt-sim and rvt-jni
     * ({@code features/src/main/feature/feature.xml}) are felix-host.bndrun's {@code -runbundles} (rvt-api included),
     * less Felix SCR and the OSGi libraries it needs, which the feature rvt takes from Karaf's own {@code scr}
     * feature; Config Admin at a version in the bndrun's range. A bundle added to or dropped from one list and not
     * the other fails here.
     */
    @Test
    void shouldListTheRunBundlesInTheKarafFeatures() throws IOException {
        Map<String, String> resolved = runBundleVersions(Path.of("felix-host.bndrun"));
        for (String scr : List.of("org.apache.felix.scr", "org.osgi.service.component", "org.osgi.util.function",
                "org.osgi.util.promise")) {
            assertThat(resolved.remove(scr)).as("%s in felix-host.bndrun -runbundles", scr).isNotNull();
        }
        String xml = Files.readString(Path.of("..", "features", "src", "main", "feature", "feature.xml"));
        Map<String, String> features = new TreeMap<>();
        for (String name : List.of("rvt", "rvt-sim", "rvt-jni")) {
            // a top-level feature's body, up to its closing tag on a line of its own (nested ones close on theirs)
            Matcher f = Pattern.compile("<feature name=\"" + name + "\"[^>]*>(.*?)\n  </feature>", Pattern.DOTALL)
                    .matcher(xml);
            assertThat(f.find()).as("feature %s in feature.xml", name).isTrue();
            if (name.equals("rvt")) {
                assertThat(f.group(1)).as("feature rvt takes SCR from Karaf").contains("<feature>scr</feature>");
            }
            Matcher b = FEATURE_BUNDLE.matcher(f.group(1));
            while (b.find()) {
                features.put(symbolicName(b.group(1), b.group(2)), b.group(3));
            }
        }
        assertThat(features.keySet()).as("the bundles of features rvt, rvt-sim and rvt-jni")
                .isEqualTo(resolved.keySet());
        String range = resolved.get("org.apache.felix.configadmin");
        assertThat(range).as("Config Admin's range in felix-host.bndrun").startsWith("[" + features.get(
                "org.apache.felix.configadmin") + ",");
    }

    /**
     * @return the symbolic name of {@code mvn:groupId/artifactId}: an rvt bundle's by rvt's rule (io.rvt. and the
     *         artifactId without "rvt-", '-' as '.'), checked against the jar's manifest where the bundle directory
     *         has the jar; any other's, its artifactId (as Felix's are named)
     */
    private static String symbolicName(String groupId, String artifactId) throws IOException {
        if (!groupId.equals("io.rvt")) {
            return artifactId;
        }
        String bsn = "io.rvt." + artifactId.replaceFirst("^rvt-", "").replace('-', '.');
        Path jar = Main.bundleDir().resolve(artifactId + ".jar");
        if (Files.exists(jar)) {
            assertThat(symbolicName(jar)).as("symbolic name of %s", jar).isEqualTo(bsn);
        }
        return bsn;
    }

    /** @return each {@code -runbundles} entry's symbolic name and version range */
    private static Map<String, String> runBundleVersions(Path bndrun) throws IOException {
        return new TreeMap<>(RunBundles.parse(Files.readString(bndrun)));
    }

    private static Set<String> runBundles(Path bndrun) throws IOException {
        return new TreeSet<>(runBundleVersions(bndrun).keySet());
    }

    private static String symbolicName(Path jar) throws IOException {
        return RunBundles.symbolicName(jar);
    }
}
