package io.rvt.publish;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A Maven repository on disk, as {@code mvn deploy} to a {@code file:} URL writes it: each artifact's directory
 * {@code group/artifact/version/}, and for a SNAPSHOT the {@code maven-metadata.xml} that names the latest
 * deploy's timestamped files.
 */
final class StagingRepository {
    private final Path root;

    StagingRepository(Path root) {
        this.root = root;
    }

    /** One deployed module: its coordinates and the directory of its version. */
    record Deployed(String groupId, String artifactId, String version, Path dir) {
        @Override
        public String toString() {
            return groupId + ":" + artifactId + ":" + version;
        }
    }

    /** @return every artifact with a version directory of {@code groupId} */
    List<Deployed> artifacts(String groupId) {
        Path group = root.resolve(groupId.replace('.', '/'));
        List<Deployed> all = new ArrayList<>();
        try (Stream<Path> artifacts = Files.list(group)) {
            for (Path a : artifacts.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> versions = Files.list(a)) {
                    for (Path v : versions.filter(Files::isDirectory).sorted().toList()) {
                        all.add(new Deployed(groupId, a.getFileName().toString(), v.getFileName().toString(), v));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all;
    }

    /**
     * @param groupId the group
     * @param artifactId the artifact
     * @param version its version (a SNAPSHOT: the latest deploy's file)
     * @param classifier the classifier, or "" for none
     * @param extension the extension ({@code pom}, {@code jar}, ...)
     * @return the file, if it was deployed
     */
    Optional<Path> file(String groupId, String artifactId, String version, String classifier, String extension) {
        Path dir = root.resolve(groupId.replace('.', '/')).resolve(artifactId).resolve(version);
        String value = version;
        if (version.endsWith("-SNAPSHOT")) {
            Optional<String> snapshot = snapshotValue(dir, classifier, extension);
            if (snapshot.isEmpty()) {
                return Optional.empty();
            }
            value = snapshot.get();
        }
        Path f = dir.resolve(artifactId + "-" + value + (classifier.isEmpty() ? "" : "-" + classifier) + "."
                + extension);
        return Files.isRegularFile(f) ? Optional.of(f) : Optional.empty();
    }

    /** The {@code <value>} of the metadata's {@code <snapshotVersion>} for this classifier and extension. */
    private static Optional<String> snapshotValue(Path dir, String classifier, String extension) {
        Path metadata = dir.resolve("maven-metadata.xml");
        if (!Files.isRegularFile(metadata)) {
            return Optional.empty();
        }
        NodeList versions = parse(metadata).getElementsByTagName("snapshotVersion");
        for (int i = 0; i < versions.getLength(); i++) {
            Element v = (Element) versions.item(i);
            if (text(v, "classifier").equals(classifier) && text(v, "extension").equals(extension)) {
                return Optional.of(text(v, "value"));
            }
        }
        return Optional.empty();
    }

    private static String text(Element parent, String tag) {
        NodeList l = parent.getElementsByTagName(tag);
        return l.getLength() == 0 ? "" : l.item(0).getTextContent().trim();
    }

    private static Document parse(Path xml) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return f.newDocumentBuilder().parse(xml.toFile());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + xml + ": " + e, e);
        }
    }
}
