package io.rvt.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first program is real: its code block (marked {@code <!-- first-program: ... -->}) is compiled as it
 * stands and run in a JVM of its own, and it prints what the README says it prints (the block after "It prints:").
 */
class ReadmeFirstProgramTest {
    @Test
    void shouldCompileAndRunTheReadmesFirstProgramAndPrintWhatTheReadmeShows(@TempDir Path out) throws Exception {
        Markdown readme = Markdown.read(Docs.ROOT.resolve("README.md"));
        Markdown.Block program = readme.blocks().stream()
                .filter(b -> b.marker() != null && b.marker().startsWith("first-program:")).findFirst().orElse(null);
        assertThat(program).as("the README's first-program block").isNotNull();
        assertThat(program.info()).isEqualTo("java");
        assertThat(new DocChecks(Docs.ROOT).check(readme, Snippet.of(program), out)).isEmpty();
    }
}
