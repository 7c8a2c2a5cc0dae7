package io.rvt.launcher;

import java.io.PrintStream;

/**
 * {@code rvt shell}: the Gogo shell of the embedded framework on the terminal, with rvt-core's {@code rvt:devices},
 * {@code rvt:ports}, {@code rvt:qps} and {@code rvt:stat} next to Gogo's own commands. Returns when the shell exits
 * (which stops the framework).
 */
final class ShellCommand {
    private final PrintStream out;

    /**
     * @param out where the greeting goes
     */
    ShellCommand(PrintStream out) {
        this.out = out;
    }

    /**
     * Waits for the shell that {@link FelixHost} started to end.
     *
     * @param host the host; must be an OSGi host started with its shell
     * @throws UsageException on a host without OSGi
     */
    void run(Host host) {
        if (!(host instanceof FelixHost felix)) {
            throw new UsageException("rvt shell needs OSGi: leave out --no-osgi");
        }
        out.println("rvt shell: Gogo on Felix, two HCAs configured through Config Admin (" + host.description()
                + ").");
        out.println("try rvt:devices, rvt:ports, rvt:qps, rvt:stat, lb, scr:list; exit 0 (or Ctrl-D) leaves");
        out.flush();
        try {
            felix.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
