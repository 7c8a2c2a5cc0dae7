package io.rvt.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation (README.md, docs/*.md) is checked: every relative link resolves, every Java block says whether it
 * compiles, and every block that says so is compiled (and run, and compared, as its marker says). The README's first
 * program has a test of its own, {@link ReadmeFirstProgramTest}.
 */
class DocsTest {
    private static final List<Markdown> DOCS = Docs.all();
    private final DocChecks checks = new DocChecks(Docs.ROOT);

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> shouldResolveEveryRelativeLinkWhenTheDocsAreRead() {
        return DOCS.stream().map(md -> DynamicTest.dynamicTest("links of " + Docs.relative(md.file()),
                () -> assertThat(checks.brokenLinks(md)).as("broken links").isEmpty()));
    }

    @TestFactory
    Stream<DynamicTest> shouldNameOnlyReadmeSectionsThatExist() {
        return DOCS.stream().map(md -> DynamicTest.dynamicTest("README sections named in " + Docs.relative(md.file()),
                () -> assertThat(checks.missingReadmeSections(md)).isEmpty()));
    }

    @TestFactory
    Stream<DynamicTest> shouldMarkEveryJavaBlockAsCompiledOrSayWhyNot() {
        return DOCS.stream().map(md -> DynamicTest.dynamicTest("java blocks of " + Docs.relative(md.file()),
                () -> assertThat(checks.unmarkedJavaBlocks(md)).isEmpty()));
    }

    @TestFactory
    Stream<DynamicTest> shouldCompileEveryBlockThatSaysItCompiles() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Markdown md : DOCS) {
            for (Markdown.Block b : md.blocks()) {
                if (Snippet.claimsToCompile(b) && !b.marker().startsWith("first-program")) {
                    tests.add(DynamicTest.dynamicTest(b.toString(), () -> {
                        Path out = Files.createTempDirectory(tmp, "block");
                        assertThat(checks.check(md, Snippet.of(b), out)).isEmpty();
                    }));
                }
            }
        }
        assertThat(tests).as("blocks that say they compile").isNotEmpty();
        return tests.stream();
    }

    @Test
    void shouldPointNowhereOutsideTheRepository() throws IOException {
        String outside = "../" + "shared";
        String machine = "/work/" + "shared";
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Docs.ROOT)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile).filter(DocsTest::isSource)::iterator) {
                String text = Files.readString(p, StandardCharsets.UTF_8);
                if (text.contains(outside) || text.contains(machine)) {
                    found.add(Docs.relative(p));
                }
            }
        }
        assertThat(found).as("files naming a path outside the repository (%s, %s)", outside, machine).isEmpty();
    }

    private static boolean isSource(Path p) {
        String rel = Docs.ROOT.relativize(p).toString();
        if (rel.startsWith(".git/") || rel.contains("/target/") || rel.startsWith("target/")) {
            return false;
        }
        String name = p.getFileName().toString();
        return name.endsWith(".md") || name.endsWith(".xml") || name.endsWith(".java") || name.endsWith(".bnd")
                || name.endsWith(".bndrun") || name.endsWith(".sh") || name.endsWith(".c") || name.endsWith(".h")
                || name.equals("Makefile") || name.equals("rvt") || rel.equals(".ci/run");
    }
}
