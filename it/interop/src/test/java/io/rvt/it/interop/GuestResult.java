package io.rvt.it.interop;

/**
 * How a command in the Linux peer's guest ended.
 *
 * @param command the command, as given
 * @param exitCode its exit code (128 + the signal's number if a signal ended it), or -1 if it has not ended
 * @param output what it printed, stdout and stderr interleaved as written
 * @param timedOut true if it outlived its deadline (it was then killed, or is still running for
 *        {@link GuestProcess#await})
 */
public record GuestResult(String command, int exitCode, String output, boolean timedOut) {
    /**
     * @return the output, if the command ended with exit code 0
     * @throws AssertionError naming the command, its exit code or deadline, and its output otherwise
     */
    public String assertSuccess() {
        if (timedOut || exitCode != 0) {
            throw new AssertionError("guest command '" + command + "' "
                    + (timedOut ? "did not end in time" : "exited with " + exitCode) + "; output:\n" + output);
        }
        return output;
    }
}
