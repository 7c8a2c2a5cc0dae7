package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code rvt --version}: the project's version, the host a command runs in, and the Java runtime. */
class VersionTest {
    private final CommandLine cli = new CommandLine();

    /** @return the version the launcher's pom inherits (its parent's), as Maven filtered it into the resource */
    private static String pomVersion() throws IOException {
        Matcher m = Pattern.compile("<parent>.*?<version>([^<]+)</version>", Pattern.DOTALL)
                .matcher(Files.readString(Path.of("pom.xml")));
        assertThat(m.find()).as("the launcher's pom names its parent's version").isTrue();
        return m.group(1);
    }

    @Test
    void shouldPrintTheProjectVersionFelixAndJavaWithoutStartingAHost() throws IOException {
        assertThat(cli.run("--version")).as(cli.err()).isZero();
        String[] lines = cli.out().split("\\R");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).isEqualTo("rvt " + pomVersion());
        assertThat(lines[1]).matches("host: OSGi, Apache Felix \\d+\\.\\d+\\.\\d+ with Felix SCR and Config Admin .*");
        assertThat(lines[2]).startsWith("java: " + Runtime.version()).contains(System.getProperty("java.vm.name"));
        assertThat(cli.err()).isEmpty();
    }

    @Test
    void shouldNameThePlainClassPathOrTheModulePathWithNoOsgi() {
        assertThat(cli.run("--no-osgi", "--version")).as(cli.err()).isZero();
        Module launcher = VersionInfo.class.getModule();
        assertThat(cli.out()).contains(launcher.isNamed()
                ? "host: the JPMS module path (module io.rvt.launcher), no OSGi"
                : "host: the plain class path, no OSGi");
    }

    @Test
    void shouldAnswerVersionAfterACommandTooAndListItInHelp() {
        assertThat(cli.run("perf", "--version")).as(cli.err()).isZero();
        assertThat(cli.out()).startsWith("rvt ");
        cli.reset();
        assertThat(cli.run("--help")).isZero();
        assertThat(cli.out()).contains("--version");
    }
}
