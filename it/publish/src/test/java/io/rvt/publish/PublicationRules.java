package io.rvt.publish;

import io.rvt.publish.StagingRepository.Deployed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.apache.maven.model.Developer;
import org.apache.maven.model.License;
import org.apache.maven.model.Model;
import org.apache.maven.model.Scm;

/**
 * What Maven Central requires of a deployment (and a repository manager enforcing the same rules, such as Nexus's
 * staging rules): in the effective pom, {@code name}, {@code description}, {@code url}, {@code licenses} (name and
 * URL), {@code developers} (name and email) and {@code scm} (url, connection, developerConnection); beside a jar,
 * its {@code -sources.jar} and {@code -javadoc.jar}; beside every file, its SHA-1 and MD5. Signatures ({@code .asc})
 * are a release's, made with the releaser's key, and not checked here. rvt's own rules on top: url and scm name the
 * project's home, not a module path Maven appended on inheritance; every bundle names its licence.
 */
final class PublicationRules {
    /** The licence every pom and bundle names (README.md, "Licence"). */
    static final String LICENSE = "Apache-2.0";

    private final String home;

    /** @param home the project's URL, which every pom's {@code url} and {@code scm/url} are */
    PublicationRules(String home) {
        this.home = home;
    }

    /**
     * @param m an effective pom
     * @return what it lacks, one line each; empty if it passes
     */
    List<String> pomProblems(Model m) {
        List<String> p = new ArrayList<>();
        require(p, m.getName(), "<name>");
        require(p, m.getDescription(), "<description>");
        if (require(p, m.getUrl(), "<url>") && !m.getUrl().equals(home)) {
            p.add("<url> is " + m.getUrl() + ", not the project's " + home + " (a module path appended on inheritance?)");
        }
        if (m.getLicenses().isEmpty()) {
            p.add("no <licenses>");
        }
        for (License l : m.getLicenses()) {
            require(p, l.getName(), "<license><name>");
            require(p, l.getUrl(), "<license><url>");
            if (!LICENSE.equals(l.getName())) {
                p.add("<license><name> is " + l.getName() + ", not " + LICENSE);
            }
        }
        if (m.getDevelopers().isEmpty()) {
            p.add("no <developers>");
        }
        for (Developer d : m.getDevelopers()) {
            require(p, d.getName(), "<developer><name>");
            require(p, d.getEmail(), "<developer><email>");
        }
        Scm scm = m.getScm();
        if (scm == null) {
            p.add("no <scm>");
        } else {
            if (require(p, scm.getUrl(), "<scm><url>") && !scm.getUrl().equals(home)) {
                p.add("<scm><url> is " + scm.getUrl() + ", not the project's " + home
                        + " (a module path appended on inheritance?)");
            }
            require(p, scm.getConnection(), "<scm><connection>");
            require(p, scm.getDeveloperConnection(), "<scm><developerConnection>");
        }
        return p;
    }

    private static boolean require(List<String> problems, String value, String what) {
        if (value == null || value.isBlank()) {
            problems.add("no " + what);
            return false;
        }
        return true;
    }

    /**
     * @param repo the repository it was deployed to
     * @param d the deployed module
     * @param packaging its effective pom's packaging
     * @return missing files and bundle headers, one line each; empty if it passes
     */
    List<String> fileProblems(StagingRepository repo, Deployed d, String packaging) {
        List<String> p = new ArrayList<>();
        file(p, repo, d, "", "pom");
        if (packaging.equals("jar")) {
            file(p, repo, d, "", "jar").ifPresent(jar -> p.addAll(bundleProblems(jar)));
            file(p, repo, d, "sources", "jar").ifPresent(jar -> {
                if (!contains(jar, ".java")) {
                    p.add(jar.getFileName() + " holds no .java file");
                }
            });
            file(p, repo, d, "javadoc", "jar").ifPresent(jar -> {
                if (!contains(jar, "index.html")) {
                    p.add(jar.getFileName() + " holds no index.html");
                }
            });
        }
        return p;
    }

    private static Optional<Path> file(List<String> problems, StagingRepository repo, Deployed d, String classifier,
            String extension) {
        String what = d.artifactId() + (classifier.isEmpty() ? "" : "-" + classifier) + "." + extension;
        Optional<Path> f = repo.file(d.groupId(), d.artifactId(), d.version(), classifier, extension);
        if (f.isEmpty()) {
            problems.add("no " + what);
            return f;
        }
        for (String sum : List.of(".sha1", ".md5")) {
            if (!Files.isRegularFile(Path.of(f.get() + sum))) {
                problems.add("no " + sum + " beside " + f.get().getFileName());
            }
        }
        return f;
    }

    /** A bundle names its licence in its manifest and carries its text. */
    static List<String> bundleProblems(Path jar) {
        List<String> p = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            Manifest mf = j.getManifest();
            String license = mf == null ? null : mf.getMainAttributes().getValue("Bundle-License");
            if (license == null || !license.startsWith(LICENSE + ";")) {
                p.add(jar.getFileName() + ": Bundle-License is " + license + ", not " + LICENSE + ";link=...");
            }
            if (j.getEntry("META-INF/LICENSE") == null) {
                p.add(jar.getFileName() + " has no META-INF/LICENSE");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    private static boolean contains(Path jar, String suffix) {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.stream().anyMatch(e -> e.getName().endsWith(suffix));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
