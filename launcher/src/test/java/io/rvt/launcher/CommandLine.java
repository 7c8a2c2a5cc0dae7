package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs rvt command lines in process and keeps what they print on stdout and stderr. */
final class CommandLine {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);

    /**
     * @param args a command line
     * @return its exit code
     */
    int run(String... args) {
        return new Main(out, err).run(args);
    }

    /**
     * @param host the host the command runs on (closed when it ends), whatever its options say
     * @param args a command line
     * @return its exit code
     */
    int runOn(Host host, String... args) {
        return new Main(out, err, o -> host).run(args);
    }

    /** @return everything printed on stdout so far */
    String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    /** @return everything printed on stderr so far */
    String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    /** Forgets what was printed. */
    void reset() {
        outBytes.reset();
        errBytes.reset();
    }

    /**
     * Asserts a command line is refused as bad usage with one line on stderr.
     *
     * @param message what the line must say
     * @param args the command line
     */
    void assertUsage(String message, String... args) {
        reset();
        assertThat(run(args)).as(String.join(" ", args)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err()).as(String.join(" ", args)).startsWith("rvt: ").contains(message)
                .doesNotContain("Exception").hasLineCount(1);
    }

    /**
     * @param name a counter's name at the start of an output line, e.g. {@code drop.loss}
     * @return the first number after it on that line
     */
    long counter(String name) {
        Matcher m = Pattern.compile("(?m)^\\s+" + Pattern.quote(name) + "\\s+(\\d+)").matcher(out());
        assertThat(m.find()).as("counter %s in%n%s", name, out()).isTrue();
        return Long.parseLong(m.group(1));
    }
}
