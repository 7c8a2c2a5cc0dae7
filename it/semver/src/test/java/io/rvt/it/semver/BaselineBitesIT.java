package io.rvt.it.semver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/**
 * The build's semantic-versioning check has teeth: this module's bundle is this build's rvt-api with one public type
 * of {@code io.rvt.api} left out and that package at its released version (this build's 2.0.0 already has the major
 * bump a removal needs, so the copy's bnd.bnd declares the release's 1.1.0), baselined by bnd-baseline-maven-plugin exactly as
 * rvt-api is (same baseline jar, same parent configuration), except that it reports instead of failing. The report's
 * rows are what the plugin fails a build on: a row marked {@code *} is a package whose version is below what its
 * change requires.
 */
class BaselineBitesIT {
    private static final Path REPORT = Path.of(System.getProperty("rvt.semver.report"));

    @Test
    void shouldFlagTheRemovedTypeAsAMajorChangeWhenThePackageVersionKeepsItsMajor() throws IOException {
        String removed = System.getProperty("rvt.semver.removed");
        Row api = row("io.rvt.api").orElseThrow(() -> new AssertionError("no io.rvt.api row in " + REPORT));

        assertThat(api.flagged).as("io.rvt.api lost %s at version %s: the plugin must flag it", removed, api.newer)
                .isTrue();
        assertThat(api.delta).isEqualTo("MAJOR");
        assertThat(major(api.newer)).as("the broken copy keeps io.rvt.api's major version").isEqualTo(major(api.older));
        assertThat(api.suggest).isEqualTo((major(api.older) + 1) + ".0.0");
    }

    @Test
    void shouldNotFlagAPackageTheCopyLeftAlone() throws IOException {
        Row spi = row("io.rvt.api.spi").orElseThrow(() -> new AssertionError("no io.rvt.api.spi row in " + REPORT));

        assertThat(spi.flagged).as("io.rvt.api.spi is this build's own: %s", spi.line).isFalse();
    }

    /** One package row of the report: {@code [*] name PACKAGE delta new old suggest ifProviders}. */
    private record Row(String line, boolean flagged, String delta, String newer, String older, String suggest) {
    }

    private static Optional<Row> row(String pkg) throws IOException {
        List<String> lines = Files.readAllLines(REPORT);
        for (String line : lines) {
            String[] f = line.substring(1).trim().split("\\s+");
            if (f.length >= 6 && f[0].equals(pkg) && f[1].equals("PACKAGE")) {
                return Optional.of(new Row(line, line.startsWith("*"), f[2], f[3], f[4], f[5]));
            }
        }
        return Optional.empty();
    }

    private static int major(String version) {
        return Integer.parseInt(version.split("\\.")[0]);
    }
}
