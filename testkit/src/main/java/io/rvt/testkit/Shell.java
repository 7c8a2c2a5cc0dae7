package io.rvt.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Commands of the host, for tests that build their own network (namespaces with {@code ip netns}, veth pairs,
 * nftables rules) and skip, saying why, where they cannot.
 */
public final class Shell {
    private Shell() {
    }

    /**
     * Runs a command to its end (at most 60 s).
     *
     * @param cmd the command and its arguments
     * @return what it printed (stdout and stderr)
     * @throws IllegalStateException naming the command and its output if it failed or did not end
     */
    public static String run(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", cmd) + " could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", cmd) + " interrupted", e);
        }
    }

    /**
     * Runs a clean-up command; a failure (e.g. a namespace that is already gone) is printed on stderr, not thrown.
     *
     * @param cmd the command and its arguments
     */
    public static void runQuietly(String... cmd) {
        try {
            run(cmd);
        } catch (IllegalStateException e) {
            System.err.println("clean-up: " + e.getMessage());
        }
    }

    /**
     * @param command a command name
     * @return true if it is an executable on the PATH (or in /usr/sbin or /sbin, which a non-login PATH may lack)
     */
    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin", command)) || Files.isExecutable(Path.of("/sbin", command));
    }

    /** @return true if this process runs as root (uid 0) */
    public static boolean isRoot() {
        return run("id", "-u").trim().equals("0");
    }
}
