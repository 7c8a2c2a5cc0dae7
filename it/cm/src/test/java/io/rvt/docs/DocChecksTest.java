package io.rvt.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The docs test's checks catch what they are for: they are run here on made-up files that break each rule. */
class DocChecksTest {
    @TempDir
    Path root;

    private Markdown write(String name, String text) throws Exception {
        Path p = root.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return Markdown.read(p);
    }

    /** Writes a Markdown file and asserts the checks find one problem with its first block, saying each part. */
    private void assertOneProblem(String name, String markdown, String... parts) throws Exception {
        Markdown md = write(name, markdown);
        Path out = Files.createTempDirectory(root, "out");
        List<String> problems = new DocChecks(root).check(md, Snippet.of(md.blocks().get(0)), out);
        assertThat(problems).singleElement().asString().contains(parts);
    }

    @Test
    void shouldSlugHeadingsAsGitHubDoes() {
        assertThat(Markdown.slug("Semantic versioning: the baseline check")).isEqualTo("semantic-versioning-the-baseline-check");
        assertThat(Markdown.slug("`--driver jni`: two RoCEv2 HCAs over real UDP")).isEqualTo("--driver-jni-two-rocev2-hcas-over-real-udp");
        assertThat(Markdown.slug("Integration tests (`it/`)")).isEqualTo("integration-tests-it");
        assertThat(Markdown.slug("One RC SEND, from postSend to the remote CQ")).isEqualTo("one-rc-send-from-postsend-to-the-remote-cq");
    }

    @Test
    void shouldReportALinkWhenItsFileOrAnchorIsMissing() throws Exception {
        write("docs/b.md", "# B\n\n## Two words\n\n## Two words\n");
        Markdown a = write("docs/a.md", "# A\n\n[ok](b.md#two-words) [ok too](b.md#two-words-1) [self](#a) "
                + "[web](https://example.org/x) `[in code](nowhere.md)`\n\n"
                + "[gone](c.md) [no anchor](b.md#three-words) [up](../../elsewhere.md)\n"
                + "```\n[in a block](nowhere.md)\n```\n");
        assertThat(new DocChecks(root).brokenLinks(a)).hasSize(3)
                .anySatisfy(l -> assertThat(l).contains("c.md").contains("no file"))
                .anySatisfy(l -> assertThat(l).contains("#three-words").contains("no heading"))
                .anySatisfy(l -> assertThat(l).contains("elsewhere.md").contains("outside the repository"));
    }

    @Test
    void shouldReportAMentionOfAReadmeSectionThatDoesNotExist() throws Exception {
        write("README.md", "# Title\n\n## Licence\n");
        Markdown md = write("sub/NOTES.md", "See the README's \"Licence\".\nAnd the README's \"Semantic versioning\".\n");
        assertThat(new DocChecks(root).missingReadmeSections(md)).singleElement().asString()
                .contains("sub/NOTES.md:2", "no section \"Semantic versioning\"");
    }

    @Test
    void shouldReportAJavaBlockThatNeitherCompilesNorSaysWhy() throws Exception {
        Markdown md = write("x.md", "<!-- compile -->\n```java\nclass A {}\n```\n\n<!-- not compiled: a sketch -->\n"
                + "```java\nfoo(...);\n```\n\n```java\nbar();\n```\n");
        assertThat(new DocChecks(root).unmarkedJavaBlocks(md)).singleElement().asString().contains("x.md:11");
    }

    @Test
    void shouldFailABlockThatStopsCompiling() throws Exception {
        assertOneProblem("y.md", "<!-- compile: body; given Device dev -->\n```java\nProtectionDomain pd = dev.allocPd();\n"
                + "pd.noSuchVerb();\n```\n",
                "does not compile", "line 4 of", "noSuchVerb");
    }

    @Test
    void shouldCompileAndRunABlockAndCompareWhatItPrints() throws Exception {
        assertOneProblem("z.md", "<!-- compile: run; prints -->\n```java\npublic class Hello {\n"
                + "    public static void main(String[] a) { System.out.println(\"hello\"); }\n}\n```\n\n```\nbye\n```\n",
                "printed", "hello", "bye");
    }

    @Test
    void shouldReportABlockThatIsNotTheFileItNames() throws Exception {
        write("src/A.java", "package p;\n\nclass A {\n    // doc: begin\n    static int one() {\n        return 1;\n"
                + "    }\n    // doc: end\n}\n");
        assertOneProblem("w.md", "<!-- compile: members; same as src/A.java -->\n```java\nstatic int one() {\n"
                + "    return 2;\n}\n```\n",
                "is not the text of src/A.java", "return 1;");
    }

    @Test
    void shouldRefuseAMarkerOptionTheConventionDoesNotHave() throws Exception {
        Markdown md = write("v.md", "<!-- compile: bodyy -->\n```java\nint x;\n```\n");
        assertThatThrownBy(() -> Snippet.of(md.blocks().get(0))).hasMessageContaining("unknown compile option 'bodyy'");
    }
}
