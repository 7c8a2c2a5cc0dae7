package io.rvt.it.interop.tools;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A tool's command line, parsed the way the Linux tool's {@code getopt} reads it: short options from a spec such as
 * {@code "s:p:C:vV"} (a colon after a letter that takes a value; {@code -C5} and {@code -C 5} both work), operands
 * after them, and rvt's own {@code --name value} options, which every tool shares ({@link CommonOptions}).
 */
final class ToolArgs {
    private final String tool;
    private final Map<Character, String> shortOpts = new HashMap<>();
    private final Map<String, String> longOpts = new HashMap<>();
    private final List<String> operands = new ArrayList<>();

    private ToolArgs(String tool) {
        this.tool = tool;
    }

    /**
     * @param tool the tool's name, for error messages
     * @param spec the short options, {@code getopt} style
     * @param args the command line
     * @return the parsed line
     * @throws IllegalArgumentException naming the tool and the option for an unknown option or a missing value
     */
    static ToolArgs parse(String tool, String spec, String... args) {
        ToolArgs a = new ToolArgs(tool);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.startsWith("--") && arg.length() > 2) {
                String name = arg.substring(2);
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    a.longOpts.put(name.substring(0, eq), name.substring(eq + 1));
                } else if (CommonOptions.isFlag(name)) {
                    a.longOpts.put(name, "");
                } else if (i + 1 < args.length) {
                    a.longOpts.put(name, args[++i]);
                } else {
                    throw new IllegalArgumentException(tool + ": option --" + name + " needs a value");
                }
            } else if (arg.startsWith("-") && arg.length() > 1) {
                for (int k = 1; k < arg.length(); k++) {
                    char c = arg.charAt(k);
                    int at = spec.indexOf(c);
                    if (at < 0 || c == ':') {
                        throw new IllegalArgumentException(tool + ": unknown option -" + c + " (takes " + spec + ")");
                    }
                    boolean takesValue = at + 1 < spec.length() && spec.charAt(at + 1) == ':';
                    if (!takesValue) {
                        a.shortOpts.put(c, "");
                        continue;
                    }
                    if (k + 1 < arg.length()) {
                        a.shortOpts.put(c, arg.substring(k + 1));
                    } else if (i + 1 < args.length) {
                        a.shortOpts.put(c, args[++i]);
                    } else {
                        throw new IllegalArgumentException(tool + ": option -" + c + " needs a value");
                    }
                    break;
                }
            } else {
                a.operands.add(arg);
            }
        }
        for (String name : a.longOpts.keySet()) {
            if (!CommonOptions.isKnown(name)) {
                throw new IllegalArgumentException(tool + ": unknown option --" + name + " (rvt's options: "
                        + CommonOptions.NAMES + ")");
            }
        }
        return a;
    }

    /** @return the tool's name */
    String tool() {
        return tool;
    }

    /**
     * @param c a short option
     * @return true if it was given
     */
    boolean has(char c) {
        return shortOpts.containsKey(c);
    }

    /**
     * @param c a short option that takes a value
     * @param dflt the value when absent
     * @return its value
     */
    String string(char c, String dflt) {
        return shortOpts.getOrDefault(c, dflt);
    }

    /**
     * @param c a short option that takes a number (decimal, or 0x hex as {@code strtoul(.., 0)} reads it)
     * @param dflt the value when absent
     * @return its value
     * @throws IllegalArgumentException naming the option and the value if it is no number
     */
    int integer(char c, int dflt) {
        String v = shortOpts.get(c);
        return v == null ? dflt : number("-" + c, v);
    }

    /**
     * @param name an rvt option without its dashes
     * @return its value, or null
     */
    String longOpt(String name) {
        return longOpts.get(name);
    }

    /**
     * @param name an rvt option that takes a number
     * @param dflt the value when absent
     * @return its value
     */
    int longInteger(String name, int dflt) {
        String v = longOpts.get(name);
        return v == null ? dflt : number("--" + name, v);
    }

    /** @return the operands, in order */
    List<String> operands() {
        return List.copyOf(operands);
    }

    private int number(String option, String v) {
        try {
            return v.startsWith("0x") || v.startsWith("0X") ? Integer.parseUnsignedInt(v.substring(2), 16)
                    : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(tool + ": option " + option + ": '" + v + "' is not a number", e);
        }
    }
}
