package io.rvt.launcher;

/** The words of each command's help ({@code rvt perf --help}) around the option list picocli prints. */
final class CommandHelp {
    private CommandHelp() {
    }

    /**
     * @param command a command of {@link Options#COMMANDS}, or {@code default}
     * @return the usage line (after picocli's heading, {@code usage: })
     */
    static String[] synopsis(String command) {
        return switch (command) {
            case "default" -> new String[] {"rvt [COMMAND] [OPTIONS]"};
            case "pingpong", "perf" -> new String[] {
                "rvt " + command + " [OPTIONS]                 (both ends in this process)",
                "       rvt " + command + " --server [OPTIONS]        (two processes, --driver jni: the server)",
                "       rvt " + command + " HOST [OPTIONS]            (the client of the server on HOST)"};
            default -> new String[] {"rvt " + command + " [OPTIONS]"};
        };
    }

    /**
     * @param command a command, or {@code default}
     * @return what it does
     */
    static String[] description(String command) {
        return switch (command) {
            case "devices" -> new String[] {"The devices, like ibv_devinfo (its -d, -i, -l and -v; fw_ver as "
                + "libibverbs writes it).", ""};
            case "pingpong" -> new String[] {
                "A ping-pong like ibv_rc_pingpong (ibv_uc_pingpong, ibv_ud_pingpong with -c UC, UD) between the two",
                "HCAs; every message is checked byte for byte. Defaults: -s 4096 -n 1000.", ""};
            case "perf" -> new String[] {
                "perftest's bandwidth and latency tests, with its flags, tables and --out_json report. Name the test",
                "with --test send|write|read|atomic and --bw (default) or --lat, or with perftest's program name:",
                "--test ib_write_bw is --test write --bw. Without any perf option: a short sweep of every test.",
                "Defaults as perftest's: bandwidth -s 65536 -n 5000 -t 128 -Q 100; latency -s 2 -n 1000.",
                "Two processes (--driver jni, one --address each): rvt perf --server [--test ...] listens, rvt perf",
                "HOST [--test ...] connects; the client's test goes to the server in the CM's REQ, and both print",
                "every row (-a: every size) as perftest's do: for SEND bandwidth the server what it received and at",
                "what rate, for SEND/WRITE latency its own side of the round trips, else the client's row. RC, UC",
                "or UD (each UD QP found by SIDR on -p + 1 + q), -q QPs, -b: both send, rows added.", ""};
            case "stat" -> new String[] {"Port counters, QP state and fabric counters after a short traffic run.", ""};
            case "shell" -> new String[] {"The Gogo shell with the rvt:* commands (OSGi; leave with exit 0).", ""};
            default -> new String[] {"Devices, then an RC ping-pong.", ""};
        };
    }

    /**
     * @param command a command, or {@code default}
     * @return notes after the options
     */
    static String[] footer(String command) {
        String exits = "Exit codes: 0 success, 1 failure, 2 bad command line.";
        return switch (command) {
            case "perf" -> new String[] {"",
                "-c UD: a message is at most the MTU (perftest's rule: without -s the size becomes the MTU, a larger",
                "-s fails; -a ends at the MTU).",
                "-l N needs -n a multiple of N and -Q dividing N (-Q is N unless given); -b and -q are for bandwidth",
                "tests. --out_json writes perftest's layout, {\"test_info\": {...}, \"results\": {...}}, for the last",
                "row (perftest rewrites the file per row); --json FILE keeps every table and row.", exits};
            default -> new String[] {"", exits};
        };
    }
}
