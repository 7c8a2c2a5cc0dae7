package io.rvt.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The checks of the docs test, on any files (the test runs them on the repository's, their own test on made-up ones). */
final class DocChecks {
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");
    /** A README section named in prose: the README's "Section". */
    private static final Pattern README_SECTION = Pattern.compile("README's \"([^\"]+)\"");

    private final Path root;
    private final Map<Path, Markdown> parsed = new HashMap<>();

    /** @param root the repository: no link may lead outside it */
    DocChecks(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /**
     * Every relative link of {@code md} resolves: the file (or directory) exists inside the repository, and an
     * {@code #anchor} is the GitHub slug of a heading of the Markdown file it names (or of {@code md} itself).
     *
     * @return one line per broken link; empty when all resolve
     */
    List<String> brokenLinks(Markdown md) {
        List<String> broken = new ArrayList<>();
        for (Markdown.Link link : md.links()) {
            String t = link.target();
            if (SCHEME.matcher(t).matches()) {
                continue; // http:, https:, mailto:: not ours to check
            }
            int hash = t.indexOf('#');
            String path = (hash < 0 ? t : t.substring(0, hash)).replace("%20", " ");
            String anchor = hash < 0 ? null : t.substring(hash + 1);
            Path target = path.isEmpty() ? md.file() : md.file().toAbsolutePath().getParent().resolve(path).normalize();
            String where = Docs.relative(md.file()) + ":" + link.line() + ": " + t;
            if (!target.startsWith(root)) {
                broken.add(where + ": leads outside the repository");
            } else if (!Files.exists(target)) {
                broken.add(where + ": no file " + Docs.relative(target));
            } else if (anchor != null && target.toString().endsWith(".md")) {
                Markdown other = parsed.computeIfAbsent(target, Markdown::read);
                if (!other.anchors().contains(anchor)) {
                    broken.add(where + ": no heading with anchor #" + anchor + " in " + Docs.relative(target)
                            + " (its anchors: " + other.anchors() + ")");
                }
            }
        }
        return broken;
    }

    /**
     * Prose that names a section of the README (the README's "Section") names one it has: such a mention is no link,
     * so {@link #brokenLinks} cannot see it go stale.
     *
     * @return one line per mention of a README section that does not exist
     */
    List<String> missingReadmeSections(Markdown md) {
        Markdown readme = parsed.computeIfAbsent(root.resolve("README.md"), Markdown::read);
        List<String> missing = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(md.file(), StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = README_SECTION.matcher(lines.get(i));
                while (m.find()) {
                    if (!readme.anchors().contains(Markdown.slug(m.group(1)))) {
                        missing.add(Docs.relative(md.file()) + ":" + (i + 1) + ": the README has no section \""
                                + m.group(1) + "\" (its anchors: " + readme.anchors() + ")");
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return missing;
    }

    /** @return one line per Java block of {@code md} that neither claims to compile nor says why it is not compiled */
    List<String> unmarkedJavaBlocks(Markdown md) {
        List<String> unmarked = new ArrayList<>();
        for (Markdown.Block b : md.blocks()) {
            if (b.info().equals("java") && !Snippet.claimsToCompile(b) && !Snippet.saysWhyNot(b)) {
                unmarked.add(b + ": a java block with neither <!-- compile... --> nor <!-- not compiled: why -->");
            }
        }
        return unmarked;
    }

    /**
     * Compiles a block that claims to compile, runs it if it says so (comparing what it prints with the next block if
     * it says that), and compares it with the file it says it is.
     *
     * @param md the file the block is in
     * @param s the block's snippet
     * @param out an empty directory for the classes
     * @return the problems; empty when the block is what it claims
     */
    List<String> check(Markdown md, Snippet s, Path out) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        Markdown.Block b = s.block();
        for (String e : s.compile(out)) {
            problems.add(b + ": does not compile: " + e);
        }
        if (problems.isEmpty() && s.runs()) {
            String printed = s.run(out);
            if (s.prints()) {
                Markdown.Block expected = md.next(b);
                if (expected == null) {
                    problems.add(b + ": says it prints the next block, and there is none");
                } else if (!Snippet.lines(printed).equals(Snippet.lines(expected.text()))) {
                    problems.add(b + ": printed\n" + printed + "\ninstead of " + expected + ":\n" + expected.text());
                }
            }
        }
        if (s.sameAs() != null) {
            Path file = root.resolve(s.sameAs()).normalize();
            if (!Files.isRegularFile(file)) {
                problems.add(b + ": no file " + s.sameAs());
            } else {
                String text = region(Files.readString(file, StandardCharsets.UTF_8));
                if (!text.equals(b.text())) {
                    problems.add(b + ": is not the text of " + s.sameAs() + " (" + firstDifference(text, b.text())
                            + ")");
                }
            }
        }
        return problems;
    }

    /** @return the text between the lines "// doc: begin" and "// doc: end", de-indented by the first's indent; or all */
    static String region(String text) {
        int begin = text.indexOf("// doc: begin\n");
        if (begin < 0) {
            return text;
        }
        int lineStart = text.lastIndexOf('\n', begin) + 1;
        int indent = begin - lineStart;
        int end = text.indexOf("// doc: end", begin);
        String inner = text.substring(begin + "// doc: begin\n".length(), text.lastIndexOf('\n', end) + 1);
        StringBuilder s = new StringBuilder();
        inner.lines().forEach(l -> s.append(l.length() >= indent && l.substring(0, indent).isBlank()
                ? l.substring(indent) : l.strip()).append('\n'));
        return s.toString();
    }

    private static String firstDifference(String want, String got) {
        List<String> a = want.lines().toList();
        List<String> b = got.lines().toList();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            String x = i < a.size() ? a.get(i) : "<end>";
            String y = i < b.size() ? b.get(i) : "<end>";
            if (!x.equals(y)) {
                return "line " + (i + 1) + " of the block: file has '" + x + "', block has '" + y + "'";
            }
        }
        return "they differ in line endings";
    }
}
