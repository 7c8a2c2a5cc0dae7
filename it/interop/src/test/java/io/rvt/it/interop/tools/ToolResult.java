package io.rvt.it.interop.tools;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one line a tool prints at its end, which a test reads back:
 * {@code RVT-RESULT <tool> <role> OK|FAIL [key=value ...] [-- message]}. The facts are what the run did (messages,
 * bytes checked) and the HCA's port counters ({@link PortSnapshot}); the message says why it failed.
 *
 * @param tool the tool, as the Linux tool is named ({@code rping}, {@code ibv_rc_pingpong}, ...)
 * @param role {@code server} or {@code client}
 * @param ok true if every message arrived with the right bytes
 * @param facts what the run did and counted, in order
 * @param message why it failed, or null
 */
public record ToolResult(String tool, String role, boolean ok, Map<String, String> facts, String message) {
    /** The marker that starts the line. */
    public static final String MARKER = "RVT-RESULT";
    /** What starts the line a server prints once it takes connections: a test starts the client then. */
    public static final String LISTENING = "RVT-LISTENING";
    private static final Pattern LINE = Pattern.compile(
            "^" + MARKER + " (\\S+) (\\S+) (OK|FAIL)((?: [^ =]+=\\S*)*)(?: -- (.*))?$");

    /** @param facts what the run did, copied in order */
    public ToolResult {
        facts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(facts));
    }

    /** @return the line */
    public String format() {
        StringBuilder b = new StringBuilder(MARKER).append(' ').append(tool).append(' ').append(role)
                .append(ok ? " OK" : " FAIL");
        facts.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        if (message != null) {
            b.append(" -- ").append(message.replace('\n', ' '));
        }
        return b.toString();
    }

    /**
     * @param key a fact's name
     * @return its value as a number
     * @throws IllegalStateException naming the line if the fact is missing
     */
    public long number(String key) {
        String v = facts.get(key);
        if (v == null) {
            throw new IllegalStateException("no " + key + " in " + format());
        }
        return Long.parseLong(v);
    }

    /**
     * @param output a tool's standard output
     * @return its result line, parsed
     * @throws IllegalStateException with the output if it has none
     */
    public static ToolResult find(String output) {
        for (String line : output.split("\n")) {
            Matcher m = LINE.matcher(line.strip());
            if (m.matches()) {
                Map<String, String> facts = new LinkedHashMap<>();
                for (String kv : m.group(4).trim().split(" ")) {
                    int eq = kv.indexOf('=');
                    if (eq > 0) {
                        facts.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                return new ToolResult(m.group(1), m.group(2), m.group(3).equals("OK"), facts, m.group(5));
            }
        }
        throw new IllegalStateException("no " + MARKER + " line in the tool's output:\n" + output);
    }
}
