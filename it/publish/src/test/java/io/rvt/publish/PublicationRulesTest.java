package io.rvt.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.maven.model.Model;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PublicationRules} and {@link EffectivePoms} on poms written here: each required element's absence is
 * named, and Maven's inheritance appends the module path to url and scm unless the parent says not to.
 */
class PublicationRulesTest {
    private static final String HOME = "https://example.org/proj";
    private static final String METADATA = """
              <url>https://example.org/proj</url>
              <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
                </license></licenses>
              <developers><developer><name>Dev</name><email>dev@example.org</email></developer></developers>
              <scm%s>
                <connection>scm:git:https://example.org/proj.git</connection>
                <developerConnection>scm:git:ssh://git@example.org/proj.git</developerConnection>
                <url>https://example.org/proj</url>
              </scm>
            """;

    @TempDir
    Path repo;
    private final PublicationRules rules = new PublicationRules(HOME);

    @Test
    void shouldPassAChildWhoseParentKeepsItsUrlAndScmUnappended() throws Exception {
        Model child = deployFamily(true, "<name>child</name><description>a module</description>");
        assertThat(rules.pomProblems(child)).isEmpty();
        assertThat(child.getLicenses()).hasSize(1);
    }

    @Test
    void shouldFlagTheModulePathMavenAppendsToAnInheritedUrlAndScm() throws Exception {
        Model child = deployFamily(false, "<name>child</name><description>a module</description>");
        assertThat(child.getUrl()).isEqualTo(HOME + "/child");
        assertThat(rules.pomProblems(child)).containsExactly(
                "<url> is " + HOME + "/child, not the project's " + HOME + " (a module path appended on inheritance?)",
                "<scm><url> is " + HOME + "/child, not the project's " + HOME
                        + " (a module path appended on inheritance?)");
    }

    @Test
    void shouldNameTheNameMavenDoesNotInheritAndAMissingDescription() throws Exception {
        Model child = deployFamily(true, "");
        assertThat(rules.pomProblems(child)).contains("no <name>");
        assertThat(child.getDescription()).as("inherited").isEqualTo("the parent");
    }

    @Test
    void shouldNameMissingLicensesDevelopersAndScm() throws Exception {
        Model m = deployFamily(true, "<name>child</name><description>a module</description>");
        m.getLicenses().clear();
        m.getDevelopers().get(0).setEmail(null);
        m.setScm(null);
        assertThat(rules.pomProblems(m)).containsExactly("no <licenses>", "no <developer><email>", "no <scm>");
    }

    @Test
    void shouldFlagABundleWithoutItsLicenceHeaderOrText() throws Exception {
        Path jar = repo.resolve("b.jar");
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, mf)) {
            j.putNextEntry(new JarEntry("a/A.class"));
        }
        assertThat(PublicationRules.bundleProblems(jar)).containsExactly(
                "b.jar: Bundle-License is null, not Apache-2.0;link=...", "b.jar has no META-INF/LICENSE");
    }

    /** Deploys (by hand) a parent with the metadata and a child inheriting it; returns the child's effective pom. */
    private Model deployFamily(boolean keepPaths, String childElements) throws Exception {
        String attrs = keepPaths ? " child.scm.connection.inherit.append.path=\"false\""
                + " child.scm.developerConnection.inherit.append.path=\"false\""
                + " child.scm.url.inherit.append.path=\"false\"" : "";
        String parent = "<project xmlns=\"http://maven.apache.org/POM/4.0.0\""
                + (keepPaths ? " child.project.url.inherit.append.path=\"false\"" : "") + ">"
                + "<modelVersion>4.0.0</modelVersion><groupId>org.example</groupId><artifactId>parent</artifactId>"
                + "<version>1.0.0</version><packaging>pom</packaging><name>parent</name>"
                + "<description>the parent</description>" + METADATA.formatted(attrs) + "</project>";
        String child = "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>"
                + "<parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0.0</version>"
                + "</parent><artifactId>child</artifactId>" + childElements + "</project>";
        write("parent", parent);
        Path pom = write("child", child);
        return new EffectivePoms(new StagingRepository(repo), repo.resolve("no-local-repo")).of(pom);
    }

    private Path write(String artifactId, String pom) throws Exception {
        Path dir = Files.createDirectories(repo.resolve("org/example").resolve(artifactId).resolve("1.0.0"));
        Path f = dir.resolve(artifactId + "-1.0.0.pom");
        Files.writeString(f, pom, StandardCharsets.UTF_8);
        return f;
    }
}
