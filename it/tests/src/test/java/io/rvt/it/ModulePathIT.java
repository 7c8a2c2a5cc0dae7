package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The same jars without OSGi: the plain JPMS module path in a child JVM, and what the jars' manifests promise. */
class ModulePathIT {
    /** rvt's modules, the application and the third-party driver: no OSGi jar. */
    private static final List<String> MODULE_PATH = List.of("rvt-api", "rvt-core", "rvt-transport", "driver-sim",
            "rvt-cm", "rvt-it-app", "rvt-it-loopback-driver");

    @Test
    void onThePlainModulePathServiceLoaderFindsTheDriversAndTrafficPasses() throws Exception {
        String modulePath = MODULE_PATH.stream().map(a -> Felix.jar(a).toString())
                .collect(Collectors.joining(File.pathSeparator));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path log = Path.of("target", "module-path-app.log"); // failsafe runs in the module's directory
        Process p = new ProcessBuilder(java.toString(), "--module-path", modulePath, "-m",
                "io.rvt.it.app/io.rvt.it.app.Main", "100").redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        boolean exited = p.waitFor(Poll.DEADLINE.toSeconds(), TimeUnit.SECONDS);
        if (!exited) {
            p.destroyForcibly().waitFor();
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(exited).as("the child JVM exited; output:%n%s", out).isTrue();

        assertThat(out).as("output").contains("(driver loopback, module io.rvt.core)")
                .contains("device sim0 (driver sim%d, module io.rvt.core)").doesNotContain("refused")
                .doesNotContain("failed");
        assertThat(out.lines().filter(l -> l.startsWith("passed: 100 RC messages"))).as("runs that passed")
                .hasSize(2);
        assertThat(p.exitValue()).as("exit code; output:%n%s", out).isZero();
        assertThat(MODULE_PATH).noneMatch(a -> a.contains("osgi") || a.contains("felix"));
    }

    @Test
    void theThirdPartyDriverBundleImportsOnlyRvtApiPackages() throws IOException {
        try (JarFile jar = new JarFile(Felix.jar("rvt-it-loopback-driver").toFile())) {
            String imports = jar.getManifest().getMainAttributes().getValue("Import-Package");
            List<String> packages = Stream.of(imports.split(",(?=[a-z])")).map(c -> c.split(";")[0]).toList();

            assertThat(packages).as("Import-Package: " + imports).isNotEmpty()
                    .allMatch(p -> p.equals("io.rvt.api") || p.startsWith("io.rvt.api.") || p.startsWith("java."))
                    .contains("io.rvt.api.spi");
        }
    }
}
