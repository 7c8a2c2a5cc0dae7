package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first program is real: its code block is compiled as it stands and run in a JVM of its own, and it
 * prints what the README says it prints.
 */
class ReadmeFirstProgramTest {
    private static final String MARKER = "<!-- first-program:";

    @Test
    void shouldCompileAndRunTheReadmesFirstProgramAndPrintWhatTheReadmeShows(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("..", "..", "README.md"), StandardCharsets.UTF_8);
        int at = readme.indexOf(MARKER);
        assertThat(at).as("the README's first-program marker").isNotNegative();
        String code = block(readme, readme.indexOf("```java", at));
        String expected = block(readme, readme.indexOf("```", readme.indexOf("It prints:", at)));

        Path source = dir.resolve("FirstProgram.java");
        Files.writeString(source, code, StandardCharsets.UTF_8);
        String classPath = System.getProperty("java.class.path");
        String compiled = run(dir.resolve("javac.txt"), tool("javac"), "-d", dir.toString(), "-cp", classPath,
                source.toString());
        assertThat(compiled).as("javac of the README's first program").isEmpty();
        String printed = run(dir.resolve("out.txt"), tool("java"), "-cp", dir + File.pathSeparator + classPath,
                "FirstProgram");
        assertThat(lines(printed)).isEqualTo(lines(expected));
    }

    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    /** Runs a command to its end (at most 120 s) and returns what it printed; fails if it fails. */
    private static String run(Path out, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(ended).as("%s ended within 120 s; it printed:%n%s", cmd[0], printed).isTrue();
        assertThat(p.exitValue()).as("%s exit code; it printed:%n%s", cmd[0], printed).isZero();
        return printed;
    }

    /** @return the text between the fence that starts at {@code fence} and the next closing fence */
    private static String block(String text, int fence) {
        assertThat(fence).as("a fenced block").isNotNegative();
        int start = text.indexOf('\n', fence) + 1;
        return text.substring(start, text.indexOf("\n```", start) + 1);
    }

    private static List<String> lines(String s) throws IOException {
        return s.strip().lines().map(String::strip).toList();
    }
}
