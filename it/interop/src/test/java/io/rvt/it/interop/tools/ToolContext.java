package io.rvt.it.interop.tools;

import io.rvt.api.Device;
import java.io.PrintStream;
import java.time.Duration;

/**
 * What a run works with: the HCA, rvt's options and the run's deadline, and where progress lines go (the Linux
 * tools print theirs on standard output too).
 */
final class ToolContext {
    private final Device device;
    private final CommonOptions options;
    private final long deadline;
    private final PrintStream out;
    private final String tool;

    /**
     * @param tool the tool's name
     * @param device the HCA the tool runs on
     * @param options rvt's options
     * @param out where progress lines go
     */
    ToolContext(String tool, Device device, CommonOptions options, PrintStream out) {
        this.tool = tool;
        this.device = device;
        this.options = options;
        this.deadline = System.nanoTime() + options.timeout().toNanos();
        this.out = out;
    }

    /** @return the HCA */
    Device device() {
        return device;
    }

    /** @return rvt's options */
    CommonOptions options() {
        return options;
    }

    /** @return what is left of the run's time (never negative) */
    Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * @param what what the run waits for
     * @throws ToolFailure naming it once the run's time is up
     */
    void checkDeadline(String what) throws ToolFailure {
        if (System.nanoTime() - deadline > 0) {
            throw new ToolFailure("timed out after " + options.timeout().toSeconds() + " s waiting for " + what);
        }
    }

    /** The marker of the line a server prints once it takes connections. */
    static final String LISTENING = ToolResult.LISTENING;

    /**
     * Says that the server takes connections now (a test starts the client on it).
     *
     * @param what where it listens (CM port, TCP port)
     */
    void listening(String what) {
        say(LISTENING + " " + tool + " " + what);
    }

    /**
     * @param line a progress line
     */
    void say(String line) {
        out.println(line);
        out.flush();
    }
}
