package io.rvt.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The command line's grammar, read by picocli: a command ({@code rvt} itself for the default run, or one of
 * {@link Options#COMMANDS}) and the options of {@link OptionDef#ALL} that belong to it, each option defined once and
 * given to every command it applies to. picocli does the lexing (long and short names, {@code --name=value},
 * {@code -s64}, clustered flags such as {@code -bF}) and the per-command help; the values stay strings here and
 * {@link Options} checks them, so that every error is one line naming the option and the value. picocli's own errors
 * are reworded the same way ({@link #usageError}).
 */
final class Syntax {
    /** Width of the per-command help. */
    private static final int HELP_WIDTH = 100;
    /** picocli's words for {@code --flag=value}. */
    private static final java.util.regex.Pattern FLAG_WITH_VALUE = java.util.regex.Pattern.compile(
            "option '([^']+)' should be specified without '(.*)' parameter");

    /**
     * What a command line says.
     *
     * @param command the command, or "default"
     * @param values long option name to its value ("" for a flag), in {@link OptionDef#ALL}'s order
     * @param positionals the positional arguments after the command (a peer's address)
     */
    record Parsed(String command, Map<String, String> values, List<String> positionals) {
    }

    private Syntax() {
    }

    /**
     * @param args the arguments after {@code rvt}
     * @return what they say
     * @throws UsageException naming the first problem
     */
    static Parsed parse(String... args) {
        CommandLine root = build();
        ParseResult result;
        try {
            result = root.parseArgs(args);
        } catch (ParameterException e) {
            throw usageError(e);
        }
        ParseResult sub = result.subcommand();
        String command = sub == null ? "default" : sub.commandSpec().name();
        Map<String, String> found = new LinkedHashMap<>();
        collect(result, found);
        if (sub != null) {
            // options before the command (rvt -n 5 pingpong) count for it if it has them
            for (String name : found.keySet()) {
                if (!OptionDef.byName(name).appliesTo(command)) {
                    throw new UsageException("option " + name + " does not apply to '" + command + "'");
                }
            }
            collect(sub, found);
        }
        Map<String, String> ordered = new LinkedHashMap<>();
        for (OptionDef d : OptionDef.ALL) {
            if (found.containsKey(d.name())) {
                ordered.put(d.name(), found.get(d.name()));
            }
        }
        List<String> positionals = new ArrayList<>();
        if (sub != null) {
            for (PositionalParamSpec p : sub.matchedPositionals()) {
                Object v = p.getValue();
                if (v instanceof List<?> list) {
                    list.forEach(x -> positionals.add(String.valueOf(x)));
                } else if (v != null) {
                    positionals.add(String.valueOf(v));
                }
            }
        }
        return new Parsed(command, ordered, positionals);
    }

    private static void collect(ParseResult r, Map<String, String> into) {
        for (OptionSpec o : r.matchedOptions()) {
            OptionDef d = OptionDef.byName(o.longestName());
            Object v = o.getValue();
            into.put(d.name(), d.flag() ? "" : String.valueOf(v));
        }
    }

    /**
     * @param command a command of {@link Options#COMMANDS}
     * @return its help: what it does, its options, and notes
     */
    static String help(String command) {
        CommandLine cl = build().getSubcommands().get(command);
        return cl.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing();
    }

    /** The grammar: {@code rvt} with the default run's options and one subcommand per command. */
    private static CommandLine build() {
        CommandLine root = new CommandLine(spec("default", "rvt"));
        for (String c : Options.COMMANDS) {
            root.addSubcommand(c, new CommandLine(spec(c, c)));
        }
        // getopt's way, as perftest parses: the last of a repeated option wins
        root.setOverwrittenOptionsAllowed(true);
        return root;
    }

    private static CommandSpec spec(String command, String name) {
        CommandSpec s = CommandSpec.create().name(name);
        s.usageMessage().width(HELP_WIDTH).sortOptions(false).synopsisHeading("usage: ")
                .customSynopsis(CommandHelp.synopsis(command))
                .description(CommandHelp.description(command)).footer(CommandHelp.footer(command));
        for (OptionDef d : OptionDef.ALL) {
            if (d.appliesTo(command)) {
                OptionSpec.Builder b = OptionSpec.builder(d.names(command)).description(d.help())
                        .usageHelp(d.name().equals("--help"));
                if (d.flag()) {
                    b.arity("0").type(boolean.class);
                } else if (command.equals("pingpong") && d.name().equals("--transport")) {
                    // -c RC|UC|UD, or the examples' -c (--chk) with no value (Options.transport)
                    b.arity("0..1").fallbackValue("").type(String.class).paramLabel("[" + d.label() + "]");
                } else {
                    b.arity("1").type(String.class).paramLabel(d.label());
                }
                s.addOption(b.build());
            }
        }
        if (OptionDef.byName("--server").appliesTo(command)) {
            s.addPositional(PositionalParamSpec.builder().arity("0..1").paramLabel("HOST").type(String.class)
                    .description("connect to the rvt " + command + " --server on HOST (jni: one HCA, UDP 4791; "
                            + "--address: this process's own)").build());
        }
        return s;
    }

    /**
     * Rewords picocli's parse error as the launcher's one-line errors.
     *
     * @param e what picocli found
     * @return the error to throw
     */
    static UsageException usageError(ParameterException e) {
        String command = e.getCommandLine().getCommandName();
        boolean atRoot = command.equals("rvt");
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            if (!arg.startsWith("-") || arg.equals("-")) {
                if (atRoot) {
                    return new UsageException("unknown command '" + arg + "' (commands: "
                            + String.join(", ", Options.COMMANDS) + ")");
                }
                return new UsageException("unexpected argument '" + arg + "' after command '" + command + "'");
            }
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            OptionDef d = OptionDef.byNameOrNull(name);
            if (d != null) {
                return new UsageException("option " + d.name() + " does not apply to "
                        + (atRoot ? "the default run" : "'" + command + "'"));
            }
            return new UsageException("unknown option '" + arg + "' (rvt " + (atRoot ? "" : command + " ")
                    + "--help lists them)");
        }
        if (e instanceof CommandLine.MissingParameterException m && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof OptionSpec o) {
            return new UsageException("option " + OptionDef.byName(o.longestName()).name() + " needs a value");
        }
        java.util.regex.Matcher flag = FLAG_WITH_VALUE.matcher(String.valueOf(e.getMessage()));
        if (flag.find()) {
            return new UsageException("option " + OptionDef.byName(flag.group(1), atRoot ? "default" : command).name()
                    + " takes no value, got '"
                    + flag.group(2) + "'");
        }
        ArgSpec a = e.getArgSpec();
        String what = a instanceof OptionSpec o ? "option " + OptionDef.byName(o.longestName()).name() + ": " : "";
        return new UsageException(what + String.valueOf(e.getMessage()).replace('\n', ' ').strip());
    }
}
