package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/cli.md's option table and the launcher's option table ({@link OptionDef#ALL}) name the same options. */
class CliDocTest {
    private static final Pattern OPTION = Pattern.compile("`(--?[A-Za-z][\\w-]*)");

    @Test
    void shouldDocumentEveryOptionInTheCliReferenceWhenTheLauncherHasIt() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "cli.md"), StandardCharsets.UTF_8);
        int at = doc.indexOf("\n## Every option\n");
        assertThat(at).as("docs/cli.md's section '## Every option'").isPositive();
        int end = doc.indexOf("\n## ", at + 1);
        Set<String> documented = new TreeSet<>();
        for (String line : doc.substring(at, end < 0 ? doc.length() : end).split("\n")) {
            if (line.startsWith("| `-")) {
                Matcher m = OPTION.matcher(line.substring(0, line.indexOf(" | ", 2)));
                while (m.find()) {
                    documented.add(m.group(1));
                }
            }
        }
        Set<String> defined = new TreeSet<>();
        for (OptionDef d : OptionDef.ALL) {
            defined.addAll(Arrays.asList(d.names()));
        }
        assertThat(documented).as("the options in docs/cli.md's '## Every option' table (add a row there for a new"
                + " option, with its names, its commands and its help line)").isEqualTo(defined);
    }
}
