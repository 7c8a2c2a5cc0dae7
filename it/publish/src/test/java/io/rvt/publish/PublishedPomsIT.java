package io.rvt.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.publish.StagingRepository.Deployed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.maven.model.Model;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code mvn deploy} of the whole project into a file repository (target/staging), then every deployed pom's
 * effective model and every deployed jar checked against what Maven Central and repository managers require
 * ({@link PublicationRules}). The deploy runs in this checkout, whose modules the build has just built: it skips
 * the tests, the baseline and resolver checks and the Karaf verification the build ran, installs nothing into the
 * local repository, and leaves out bench (not published; its shaded JMH jar costs seconds) and this module.
 */
class PublishedPomsIT {
    /**
     * What a release publishes: the parent and every module that does not skip deploy; rvt-ffm where the root pom's
     * jdk22 profile builds it (its file activation: this JDK's javac exists).
     */
    private static final List<String> PUBLISHED = Stream.concat(Stream.of("driver-jni", "driver-sim", "launcher",
            "rvt-api", "rvt-cm", "rvt-core", "rvt-features", "rvt-parent", "rvt-transport", "testkit"),
            Files.exists(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac")) ? Stream.of("rvt-ffm")
                    : Stream.empty()).sorted().toList();
    private static final long DEADLINE_MINUTES = 15;

    private static StagingRepository staging;
    private static Map<Deployed, Model> poms;
    private static String home;

    @BeforeAll
    static void deploy() throws Exception {
        Path root = Path.of(System.getProperty("rvt.root")).toAbsolutePath().normalize();
        Path repo = Path.of(System.getProperty("rvt.staging"));
        delete(repo);
        Path log = repo.resolveSibling("staging-deploy.log");
        // a repository id of its own: Maven notes a deploy's metadata in the local repository under that id
        List<String> cmd = List.of(Path.of(System.getProperty("rvt.maven.home"), "bin", "mvn").toString(), "-B",
                "-ntp", "-f", root.resolve("pom.xml").toString(),
                "-Dmaven.repo.local=" + System.getProperty("rvt.maven.repo.local"), "deploy",
                "-DaltDeploymentRepository=rvt-publish-check::" + repo.toUri(), "-pl", "!bench,!it/publish",
                "-Dmaven.install.skip=true", "-Dmaven.test.skip=true", "-Dbnd.baseline.skip=true",
                "-Dbnd.resolve.skip=true", "-Drvt.features.verify.skip=true");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null")
                        .toFile()));
        // a short-lived Maven: C1 and the serial collector take its CPU time from 18 s to 7 s (measured here)
        pb.environment().put("MAVEN_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Process p = pb.start();
        boolean ended = p.waitFor(DEADLINE_MINUTES, TimeUnit.MINUTES);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        assertThat(ended && p.exitValue() == 0).as("%s exits 0 within %d min; its output: %s", String.join(" ", cmd),
                DEADLINE_MINUTES, log).isTrue();
        staging = new StagingRepository(repo);
        EffectivePoms effective = new EffectivePoms(staging, Path.of(System.getProperty("rvt.maven.repo.local")));
        poms = new LinkedHashMap<>();
        for (Deployed d : staging.artifacts("io.rvt")) {
            poms.put(d, effective.of(staging.file(d.groupId(), d.artifactId(), d.version(), "", "pom").orElseThrow()));
        }
        home = poms.entrySet().stream().filter(e -> e.getKey().artifactId().equals("rvt-parent")).findFirst()
                .orElseThrow().getValue().getUrl();
    }

    @Test
    void shouldDeployExactlyThePublishedModules() {
        assertThat(poms.keySet().stream().map(Deployed::artifactId).sorted().toList())
                .as("the deployed artifacts (a new module: publish it, or set maven.deploy.skip)")
                .isEqualTo(PUBLISHED);
    }

    @Test
    void shouldGiveEveryDeployedPomWhatCentralRequires() {
        assertThat(home).as("the parent's <url>").startsWith("https://");
        PublicationRules rules = new PublicationRules(home);
        List<String> problems = new ArrayList<>();
        poms.forEach((d, m) -> rules.pomProblems(m).forEach(p -> problems.add(d + ": " + p)));
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldDeployEveryJarWithItsSourcesJavadocAndChecksumsAndEveryBundleWithItsLicence() {
        PublicationRules rules = new PublicationRules(home);
        List<String> problems = new ArrayList<>();
        poms.forEach((d, m) -> rules.fileProblems(staging, d, m.getPackaging()).forEach(p -> problems.add(d + ": "
                + p)));
        assertThat(problems).isEmpty();
        assertThat(poms.values().stream().filter(m -> m.getPackaging().equals("jar")).count())
                .as("bundles checked").isEqualTo(PUBLISHED.size() - 2);
    }

    @Test
    void shouldPublishTheDistributionArchiveBesideTheLaunchersJar() {
        assertThat(staging.file("io.rvt", "launcher", poms.keySet().iterator().next().version(), "", "tar.gz"))
                .as("io.rvt:launcher:<version>:tar.gz").isPresent();
    }

    private static void delete(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir.getParent());
        Files.writeString(dir.resolveSibling("staging-deploy.log"), "", StandardCharsets.UTF_8);
    }
}
