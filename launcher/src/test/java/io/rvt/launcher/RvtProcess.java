package io.rvt.launcher;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An {@code rvt} command run as a child JVM on this JVM's class path, optionally inside a network namespace
 * ({@code ip netns exec}): what the two-process tests start as server and client. Its stdout is collected by a
 * thread of its own; stderr goes to a file.
 */
final class RvtProcess implements AutoCloseable {
    /** How long a child may run (connections, a short test, shutdown) on a loaded machine. */
    static final long DEADLINE_SECONDS = 240;

    private final Process process;
    private final StringBuilder out = new StringBuilder();
    private final File err;
    private final String name;
    /** Reads stdout until the child closes it. */
    private final Thread reader;

    private RvtProcess(String name, List<String> command, boolean input) throws IOException {
        this.name = name;
        this.err = File.createTempFile("rvt-" + name + "-", ".err");
        err.deleteOnExit();
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(err);
        pb.redirectInput(input ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.from(new File("/dev/null")));
        this.process = pb.start();
        this.reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (out) {
                        out.append(line).append('\n');
                        out.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the child is gone
            }
        }, "rvt-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param name "server" or "client", for errors
     * @param netns the network namespace to run in, or null
     * @param args the rvt command line
     * @return the running child
     * @throws IOException if it cannot be started
     */
    static RvtProcess start(String name, String netns, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (netns != null) {
            cmd.addAll(List.of("ip", "netns", "exec", netns));
        }
        cmd.addAll(java(args));
        return new RvtProcess(name, cmd, false);
    }

    /** @return the command line of a child JVM running {@code rvt args} on this JVM's class path */
    private static List<String> java(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-Drvt.bundles=" + Main.bundleDir());
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * @param name for errors
     * @param args the rvt command line
     * @return the running child, its standard input a pipe ({@link #type}, {@link #endInput})
     * @throws IOException if it cannot be started
     */
    static RvtProcess startWithInput(String name, String... args) throws IOException {
        return new RvtProcess(name, java(args), true);
    }

    /**
     * Runs {@code rvt args} on a pseudo-terminal of {@code columns} x {@code rows} ({@code script}, {@code stty}),
     * whose keyboard is {@link #type}.
     *
     * @param name for errors
     * @param columns the terminal's width (0: a terminal that reports no size)
     * @param rows its height
     * @param args the rvt command line
     * @return the running child
     * @throws IOException if it cannot be started
     */
    static RvtProcess startOnTerminal(String name, int columns, int rows, String... args) throws IOException {
        StringBuilder line = new StringBuilder("stty cols " + columns + " rows " + rows + ";");
        for (String word : java(args)) {
            line.append(" '").append(word.replace("'", "'\\''")).append('\'');
        }
        return new RvtProcess(name, List.of("script", "-qfec", line.toString(), "/dev/null"), true);
    }

    /**
     * Writes {@code text} to its standard input.
     *
     * @param text what to type
     * @throws IOException if it has ended
     */
    void type(String text) throws IOException {
        process.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /**
     * Closes its standard input (the end of a pipe).
     *
     * @throws IOException if that fails
     */
    void endInput() throws IOException {
        process.getOutputStream().close();
    }

    /**
     * Waits until stdout has a line containing {@code text}.
     *
     * @param text what the line contains
     * @throws InterruptedException if interrupted
     * @throws AssertionError if the child ends or {@link #DEADLINE_SECONDS} pass first
     */
    void awaitLine(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        synchronized (out) {
            while (out.indexOf(text) < 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && out.indexOf(text) < 0) {
                    if (!process.isAlive()) {
                        out.wait(200); // the reader may still be draining
                        if (out.indexOf(text) >= 0) {
                            return;
                        }
                    }
                    throw new AssertionError(name + " printed no '" + text + "'; stdout:\n" + out + "\nstderr:\n"
                            + stderr());
                }
                out.wait(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 500));
            }
        }
    }

    /**
     * @return the exit code, once the child has ended and all its stdout is read
     * @throws InterruptedException if interrupted
     * @throws AssertionError if it does not end within {@link #DEADLINE_SECONDS}
     */
    int exitCode() throws InterruptedException {
        if (!process.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " still runs after " + DEADLINE_SECONDS + " s; stdout:\n" + out());
        }
        reader.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
        return process.exitValue();
    }

    /** @return whether the child still runs */
    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until stdout grows, at most {@code millis}.
     *
     * @param millis the longest wait
     * @throws InterruptedException if interrupted
     */
    void awaitOutput(long millis) throws InterruptedException {
        synchronized (out) {
            int before = out.length();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (out.length() == before && process.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                out.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
            }
        }
    }

    /** Sends it SIGTERM, as {@code kill PID} (or Ctrl-C's SIGINT) would end a run that never ends by itself. */
    void kill() {
        process.destroy();
    }

    /**
     * Sends it SIGTERM as {@link #kill} does, but keeps reading what it prints as it shuts down ({@link Process#destroy}
     * also closes this side of its pipes).
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** @return everything it printed on stdout so far */
    String out() {
        synchronized (out) {
            return out.toString();
        }
    }

    /** @return what it printed on stderr */
    String stderr() {
        try {
            return java.nio.file.Files.readString(err.toPath(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    /** Kills it if it still runs (and its JVM, when started through {@code ip netns exec}). */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        err.delete();
    }
}
