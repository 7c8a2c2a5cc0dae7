package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * docs/cli.md's samples are what the commands print: every fenced block that starts with {@code $ ./rvt ...} says
 * above it whether it is run ({@code <!-- output: run by CliSamplesTest -->}) or not and why
 * ({@code <!-- output: not run, ... -->}); each one that is run here, in a JVM of its own as {@code ./rvt} runs it,
 * prints lines that match the sample's ({@link OutputTemplate}: numbers may differ, {@code ...} skips lines).
 */
class CliSamplesTest {
    static final String RUN = "output: run by CliSamplesTest";
    private static final Pattern FENCE = Pattern.compile("^```\\w*$");
    private static final Pattern MARKER = Pattern.compile("^<!--\\s*(.*?)\\s*-->$");

    /** A sample: its line in cli.md, its marker (or null), its command line and the lines shown below it. */
    record Sample(int line, String marker, String command, List<String> shown) {
        @Override
        public String toString() {
            return "docs/cli.md:" + line + " $ ./rvt " + command;
        }
    }

    @Test
    void shouldSayOfEverySampleWhetherItIsRun() throws IOException {
        List<Sample> samples = samples();
        assertThat(samples).as("samples in docs/cli.md").hasSizeGreaterThan(5);
        for (Sample s : samples) {
            assertThat(s.marker()).as(s + ": the comment above it, '<!-- " + RUN + " -->' or '<!-- output: not run,"
                    + " <why> -->'").matches(RUN.replace(" ", "\\s") + "|output: not run, .+");
        }
        assertThat(samples.stream().filter(s -> RUN.equals(s.marker())).count()).as("samples run").isGreaterThan(4);
    }

    @TestFactory
    Stream<DynamicTest> shouldPrintWhatTheSampleShows() throws IOException {
        return samples().stream().filter(s -> RUN.equals(s.marker())).map(s -> DynamicTest.dynamicTest(s.toString(),
                () -> {
                    try (RvtProcess rvt = RvtProcess.start("sample", null, s.command().split(" "))) {
                        int code = rvt.exitCode();
                        assertThat(code).as("%s exits 0; stderr:%n%s", s, rvt.stderr()).isZero();
                        String mismatch = new OutputTemplate(s.shown()).mismatch(rvt.out().lines().toList());
                        assertThat(mismatch).as("%s against its output:%n%s", s, rvt.out()).isNull();
                    }
                }));
    }

    private static List<Sample> samples() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("..", "docs", "cli.md"), StandardCharsets.UTF_8);
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!FENCE.matcher(lines.get(i)).matches()) {
                continue;
            }
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).equals("```")) {
                end++;
            }
            if (end > i + 1 && lines.get(i + 1).startsWith("$ ./rvt ")) {
                samples.add(new Sample(i + 2, markerAbove(lines, i), lines.get(i + 1).substring("$ ./rvt ".length()),
                        lines.subList(i + 2, end)));
            }
            i = end;
        }
        return samples;
    }

    private static String markerAbove(List<String> lines, int fence) {
        int k = fence - 1;
        while (k >= 0 && lines.get(k).isBlank()) {
            k--;
        }
        Matcher m = k < 0 ? null : MARKER.matcher(lines.get(k).strip());
        return m != null && m.matches() ? m.group(1) : null;
    }
}
