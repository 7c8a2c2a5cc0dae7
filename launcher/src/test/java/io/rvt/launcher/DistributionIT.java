package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution archive, {@code target/rvt-<version>.tar.gz} (src/assembly/dist.xml), on a machine that has a
 * Java runtime and nothing else: unpacked into an empty directory and run from another empty one, with an empty HOME
 * (no {@code ~/.m2}) and a PATH that holds only {@code java} (no mvn, no gcc, not even the shell's tools), or with
 * JAVA_HOME and no PATH at all.
 */
class DistributionIT {
    private static final long DEADLINE_SECONDS = 240;

    @TempDir
    static Path dir;
    private static Path installed;
    private static Path home;
    private static Path javaOnly;
    private static Path cwd;

    @BeforeAll
    static void unpack() throws Exception {
        Path archive = Path.of(System.getProperty("rvt.dist"));
        assertThat(archive).as("the archive mvn package builds").isRegularFile();
        Path into = Files.createDirectories(dir.resolve("opt"));
        Process tar = new ProcessBuilder("tar", "xzf", archive.toString(), "-C", into.toString()).inheritIO().start();
        assertThat(tar.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS) && tar.exitValue() == 0).as("tar xzf").isTrue();
        try (Stream<Path> top = Files.list(into)) {
            List<Path> roots = top.toList();
            assertThat(roots).as("one top directory").hasSize(1);
            installed = roots.get(0);
        }
        assertThat(installed.getFileName()).hasToString(archive.getFileName().toString().replace(".tar.gz", ""));
        home = Files.createDirectories(dir.resolve("home"));
        cwd = Files.createDirectories(dir.resolve("cwd"));
        javaOnly = Files.createDirectories(dir.resolve("path"));
        Files.createSymbolicLink(javaOnly.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    }

    @Test
    void shouldHoldTheCommandItsBundlesTheNativeLibraryTheLicencesAndTheDocs() throws IOException {
        assertThat(installed.resolve("bin/rvt")).isExecutable();
        for (String f : List.of("LICENSE", "README.md", "THIRD-PARTY.txt", "docs/cli.md", "lib/launcher.jar",
                "lib/native/linux-x86_64/librvtjni.so", "licenses/LGPL-3.0.txt", "licenses/GPL-3.0.txt",
                "licenses/JLine-BSD-3-Clause.txt")) {
            assertThat(installed.resolve(f)).as(f).isRegularFile();
        }
        List<String> bundles = new ArrayList<>(RunBundles.jarNames(installed.resolve("bundles"), FelixHost.BUNDLES));
        bundles.addAll(FelixHost.SHELL_BUNDLES);
        bundles.addAll(List.of("driver-sim", "driver-jni"));
        for (String b : bundles) {
            assertThat(installed.resolve("bundles/" + b + ".jar")).as("FelixHost's bundle " + b).isRegularFile();
        }
        String thirdParty = Files.readString(installed.resolve("THIRD-PARTY.txt"), StandardCharsets.UTF_8);
        for (String sub : List.of("lib", "bundles")) {
            try (Stream<Path> jars = Files.list(installed.resolve(sub))) {
                for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
                    String name = jar.getFileName().toString();
                    if (!isRvts(name)) {
                        assertThat(thirdParty).as("THIRD-PARTY.txt names " + sub + "/" + name + " and its licence")
                                .contains("  " + name + " ");
                    }
                }
            }
        }
    }

    private static boolean isRvts(String jar) {
        return jar.startsWith("rvt-") || jar.startsWith("driver-") || jar.equals("launcher.jar");
    }

    @Test
    void shouldListTheTwoSimulatedHcasWithOnlyJavaOnThePathAndLeaveHomeEmpty() throws Exception {
        Run r = run(withJavaOnThePath(), "devices");
        assertThat(r.out()).contains("hca_id:\tsim0", "hca_id:\tsim1", "\tfw_ver:", "\t\t\tport_lmc:");
        try (Stream<Path> left = Files.list(home)) {
            assertThat(left).as("what the run wrote into HOME").isEmpty();
        }
    }

    @Test
    void shouldRunTheDefaultDevicesAndPingPongOnDriverSimInFelix() throws Exception {
        Run r = run(withJavaOnThePath());
        assertThat(r.out()).contains("hca_id:\tsim0", "hca_id:\tsim1", "1000 iters in ",
                "measured on a simulated device: driver-sim in OSGi (Felix");
    }

    @Test
    void shouldPingPongOverUdpOnDriverJniInFelix() throws Exception {
        Run r = run(withJavaOnThePath(), "--driver", "jni", "pingpong");
        assertThat(r.out()).contains("(roce0)", "(roce1)", "1000 iters in ",
                "measured on driver-jni in OSGi (Felix, Config Admin io.rvt.driver.jni)");
    }

    /**
     * JAVA_HOME and no PATH, on the plain class path: driver-jni loads the archive's {@code lib/native} library
     * (java.library.path), since a temporary directory to extract its jar's copy to is not to be had here.
     */
    @Test
    void shouldPingPongOnDriverJniWithoutOsgiFromJavaHomeAndTheArchivesNativeLibrary() throws Exception {
        Map<String, String> env = Map.of("HOME", home.toString(), "JAVA_HOME", System.getProperty("java.home"),
                "JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + dir.resolve("no-such-dir"));
        Run r = run(env, "--no-osgi", "--driver", "jni", "pingpong", "-n", "100");
        assertThat(r.out()).contains("(roce0)", "(roce1)", "100 iters in ", "measured on driver-jni (RoCEv2 over UDP");
    }

    /** A link to bin/rvt elsewhere (~/bin, /usr/local/bin) finds the archive's lib/ (with ls, to read the link). */
    @Test
    void shouldFindItsInstallationThroughASymbolicLink() throws Exception {
        Path link = Files.createSymbolicLink(Files.createDirectories(dir.resolve("links")).resolve("rvt"),
                installed.resolve("bin/rvt"));
        Map<String, String> env = Map.of("HOME", home.toString(), "PATH", javaOnly + ":/usr/bin:/bin");
        Path out = Files.createTempFile(dir, "out", ".txt");
        Process p = start(link, env, List.of("--version"), out, out);
        assertThat(p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).startsWith("rvt " + System.getProperty("rvt.version"));
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void shouldSayWhatIsMissingWhenThereIsNoJava() throws Exception {
        Process p = start(Map.of("HOME", home.toString(), "PATH", cwd.toString()), List.of());
        assertThat(p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(1);
        assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("rvt: no java on the PATH and no JAVA_HOME (rvt needs Java 17 or newer)\n");
    }

    private static Map<String, String> withJavaOnThePath() {
        return Map.of("HOME", home.toString(), "PATH", javaOnly.toString());
    }

    private record Run(String out, String err) {
    }

    /** Runs bin/rvt in the empty working directory with exactly {@code env}; fails unless it exits 0. */
    private static Run run(Map<String, String> env, String... args) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = start(env, List.of(args), out, err);
        boolean ended = p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        Run r = new Run(Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertThat(ended && p.exitValue() == 0).as("bin/rvt %s exits 0 within %d s; stdout:%n%s%nstderr:%n%s",
                String.join(" ", args), DEADLINE_SECONDS, r.out(), r.err()).isTrue();
        return r;
    }

    private static Process start(Map<String, String> env, List<String> args) throws IOException {
        return start(installed.resolve("bin/rvt"), env, args, null, null);
    }

    private static Process start(Map<String, String> env, List<String> args, Path out, Path err) throws IOException {
        return start(installed.resolve("bin/rvt"), env, args, out, err);
    }

    private static Process start(Path rvt, Map<String, String> env, List<String> args, Path out, Path err)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(rvt.toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        if (out != null) {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        }
        return pb.start();
    }
}
