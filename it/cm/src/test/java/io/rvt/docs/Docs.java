package io.rvt.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Where the repository's documentation is: README.md, baseline/README.md and every {@code docs/*.md}. */
final class Docs {
    /** The repository's root (the tests run in {@code it/cm}). */
    static final Path ROOT = Path.of("..", "..").toAbsolutePath().normalize();

    private Docs() {
    }

    /** @return README.md, baseline/README.md and docs/*.md, parsed */
    static List<Markdown> all() {
        List<Markdown> all = new ArrayList<>();
        all.add(Markdown.read(ROOT.resolve("README.md")));
        all.add(Markdown.read(ROOT.resolve("baseline/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(p -> all.add(Markdown.read(p)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all;
    }

    /** @return {@code p} relative to the repository's root, for messages */
    static String relative(Path p) {
        Path a = p.toAbsolutePath().normalize();
        return a.startsWith(ROOT) ? ROOT.relativize(a).toString() : p.toString();
    }
}
