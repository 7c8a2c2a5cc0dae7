package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./rvt} script's build decision, run on a copy of it in a made-up tree whose "jars" are empty files and
 * whose Maven is a stand-in ({@code RVT_MVN}) that notes it ran: it builds when a jar is missing or a source is newer
 * than the launcher's jar, writes the build's output to {@code target/rvt-build.log} in the tree, and otherwise goes
 * straight to java (which fails here on the empty jar, after the decision this test checks).
 */
class RvtScriptTest {
    private static final List<String> JARS = List.of("launcher/target/launcher-0.1.0-SNAPSHOT.jar",
            "launcher/target/lib/rvt-core.jar", "launcher/target/lib/driver-jni.jar", "launcher/target/lib/picocli.jar",
            "launcher/target/bundles/driver-sim.jar", "launcher/target/bundles/driver-jni.jar");

    @TempDir
    Path tree;
    private Path source;
    private Path mvnRan;

    @BeforeEach
    void makeTree() throws IOException {
        Path script = Path.of(System.getProperty("user.dir")).getParent().resolve("rvt");
        Files.copy(script, tree.resolve("rvt"));
        FileTime built = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
        for (String jar : JARS) {
            Path p = tree.resolve(jar);
            Files.createDirectories(p.getParent());
            Files.createFile(p);
            Files.setLastModifiedTime(p, built);
        }
        source = tree.resolve("rvt-core/src/main/java/io/rvt/core/Thing.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "class Thing {}\n");
        Files.setLastModifiedTime(source, FileTime.fromMillis(built.toMillis() - 60_000));
        mvnRan = tree.resolve("mvn-ran");
    }

    /** A stand-in for mvn: notes its arguments, prints a line (the log's content) and exits with {@code code}. */
    private Path fakeMaven(int code) throws IOException {
        Path mvn = tree.resolve("fake-mvn");
        Files.writeString(mvn, "#!/bin/sh\necho \"$@\" > '" + mvnRan + "'\necho 'the build said this'\nexit " + code
                + "\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        return mvn;
    }

    private record Run(int code, String stderr) {
    }

    private Run run(Path mvn) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", tree.resolve("rvt").toString(), "--version");
        pb.environment().put("RVT_MVN", mvn.toString());
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path err = tree.resolve("stderr");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the script ends").isTrue();
        return new Run(p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void shouldNotBuildWhenEveryJarIsThereAndNoSourceIsNewer() throws Exception {
        Run r = run(fakeMaven(0));
        assertThat(r.stderr()).doesNotContain("rvt: building");
        assertThat(mvnRan).doesNotExist();
    }

    @Test
    void shouldRebuildWhenASourceIsNewerThanTheJarAndLogInsideTheTree() throws Exception {
        Files.setLastModifiedTime(source, FileTime.fromMillis(System.currentTimeMillis()));
        Run r = run(fakeMaven(0));
        assertThat(r.stderr()).contains("rvt: building (rvt-core/src/main/java/io/rvt/core/Thing.java is newer than "
                + "the last build");
        assertThat(Files.readString(mvnRan)).contains("install -pl launcher -am");
        assertThat(tree.resolve("target/rvt-build.log")).content().contains("the build said this");
        // the build's time is the jar's now: the next run does not build again
        Files.delete(mvnRan);
        assertThat(run(fakeMaven(0)).stderr()).doesNotContain("rvt: building");
        assertThat(mvnRan).doesNotExist();
    }

    @Test
    void shouldBuildWhenAJarIsMissing() throws Exception {
        Files.delete(tree.resolve("launcher/target/bundles/driver-jni.jar"));
        assertThat(run(fakeMaven(0)).stderr()).contains("rvt: building (first run, a few minutes)");
        assertThat(mvnRan).exists();
    }

    @Test
    void shouldNameTheLogWhenTheBuildFails() throws Exception {
        Files.setLastModifiedTime(source, FileTime.fromMillis(System.currentTimeMillis()));
        Run r = run(fakeMaven(1));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.stderr()).contains("rvt: build failed; see " + tree.resolve("target/rvt-build.log"));
    }
}
