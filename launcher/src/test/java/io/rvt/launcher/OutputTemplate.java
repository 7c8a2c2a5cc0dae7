package io.rvt.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A documented sample of a command's output, as a pattern the real output must match line by line: numbers (decimal,
 * {@code 0x} hex, GUIDs and GIDs in 4-digit groups; not the digits of a name such as {@code sim0}) stand for any
 * number, a run of blanks for any run, and a line that starts with {@code ...} for any lines (none too). Everything
 * else must be as printed.
 */
final class OutputTemplate {
    /** A number as the commands print them; its sample's value is only an example. */
    private static final String NUMBER = "0x[0-9a-fA-F]+|[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4})+|\\d+(?:\\.\\d+)?";
    /** A number, not part of a name such as {@code sim0}, or a run of blanks. */
    private static final Pattern TOKEN = Pattern.compile("(?<![A-Za-z_])(?:" + NUMBER + ")(?![A-Za-z_])|[ \\t]+");

    private final List<String> sample;
    /** One per sample line; null for an elision. */
    private final List<Pattern> lines = new ArrayList<>();

    /** @param sample the sample's lines (the command line left out) */
    OutputTemplate(List<String> sample) {
        this.sample = sample;
        for (String line : sample) {
            lines.add(line.strip().startsWith("...") ? null : Pattern.compile(regex(line)));
        }
    }

    private static String regex(String line) {
        StringBuilder re = new StringBuilder();
        Matcher m = TOKEN.matcher(line);
        int at = 0;
        while (m.find()) {
            re.append(Pattern.quote(line.substring(at, m.start())));
            re.append(m.group().isBlank() ? "[ \\t]+" : "(?:" + NUMBER + ")");
            at = m.end();
        }
        return re.append(Pattern.quote(line.substring(at))).toString();
    }

    /**
     * @param output the command's output, line by line
     * @return null if it matches, else the first sample line no output line matched, with the output around it
     */
    String mismatch(List<String> output) {
        List<String> out = new ArrayList<>(output);
        while (!out.isEmpty() && out.get(out.size() - 1).isBlank()) {
            out.remove(out.size() - 1);
        }
        int[] furthest = {0, 0};
        if (matches(0, 0, out, furthest)) {
            return null;
        }
        int t = Math.min(furthest[0], sample.size() - 1);
        int o = furthest[1];
        return "sample line " + (t + 1) + " '" + sample.get(t) + "' has no match; output from line " + (o + 1) + ":\n"
                + String.join("\n", out.subList(Math.min(o, out.size()), Math.min(o + 5, out.size())));
    }

    private boolean matches(int t, int o, List<String> out, int[] furthest) {
        if (t > furthest[0] || t == furthest[0] && o > furthest[1]) {
            furthest[0] = t;
            furthest[1] = o;
        }
        if (t == lines.size()) {
            return o == out.size();
        }
        Pattern p = lines.get(t);
        if (p == null) {
            for (int skip = o; skip <= out.size(); skip++) {
                if (matches(t + 1, skip, out, furthest)) {
                    return true;
                }
            }
            return false;
        }
        return o < out.size() && p.matcher(out.get(o)).matches() && matches(t + 1, o + 1, out, furthest);
    }
}
