package io.rvt.it.interop;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM inside a network namespace ({@code ip netns exec NS java -cp <this JVM's class path> MAIN args}), as
 * driver-jni's {@code NetnsRcIT} and the launcher's {@code RvtProcess} run theirs: the rvt side of an interop case,
 * on the host end of the Linux peer's TAP. Its stdout is collected line by line by a thread of its own (read with
 * {@link #awaitLine}), stderr goes to a file, stdin stays open for {@link #send}. Every wait is bounded.
 */
public final class NamespaceJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final File err;
    private final List<String> lines = new ArrayList<>();
    /** Lines before this index have been returned by {@link #awaitLine} already. */
    private int consumed;
    private final Writer stdin;

    private NamespaceJvm(String name, List<String> command) throws IOException {
        this.name = name;
        this.err = File.createTempFile("rvt-interop-" + name + "-", ".err");
        err.deleteOnExit();
        this.process = new ProcessBuilder(command).redirectError(err).start();
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::collect, "rvt-interop-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} in a JVM of its own inside {@code netns}, on this JVM's class path.
     *
     * @param netns the network namespace ({@link LinuxPeer#netns()})
     * @param name a short name for messages and thread names, e.g. {@code "client"}
     * @param main the class whose {@code main} runs
     * @param jvmOptions options for the child's JVM (e.g. {@code -Xmx256m}), may be empty
     * @param args its arguments
     * @return the running child
     * @throws IOException if it cannot be started
     */
    public static NamespaceJvm start(String netns, String name, Class<?> main, List<String> jvmOptions,
            String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", netns,
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return new NamespaceJvm(name, cmd);
    }

    private void collect() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // the child is gone
        } finally {
            synchronized (lines) {
                lines.add(null); // end of output
                lines.notifyAll();
            }
        }
    }

    /**
     * Waits for the next line (after those returned before) that starts with {@code prefix}.
     *
     * @param prefix what the line starts with
     * @param timeout the longest wait
     * @return the line
     * @throws AssertionError with the child's stdout and stderr if it ends or the deadline passes first
     * @throws InterruptedException if interrupted
     */
    public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                for (; consumed < lines.size(); consumed++) {
                    String line = lines.get(consumed);
                    if (line == null) {
                        throw new AssertionError(name + " ended (exit " + exitCodeNow() + ") before printing '"
                                + prefix + "'; " + outputs());
                    }
                    if (line.startsWith(prefix)) {
                        consumed++;
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(name + " printed no '" + prefix + "' within " + timeout + "; "
                            + outputs());
                }
                lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    /**
     * Writes a line to its stdin.
     *
     * @param line the line, without the newline
     */
    public void send(String line) {
        try {
            stdin.write(line + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + " does not read its stdin any more; " + outputs(), e);
        }
    }

    /**
     * Waits for its end.
     *
     * @param timeout the longest wait
     * @return the exit code
     * @throws AssertionError with its outputs if it still runs at the deadline
     * @throws InterruptedException if interrupted
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still runs after " + timeout + "; " + outputs());
        }
        return process.exitValue();
    }

    /** @return true while the child JVM (or {@code ip netns exec} around it) still runs */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** @return everything it printed on stdout so far */
    public String out() {
        synchronized (lines) {
            StringBuilder sb = new StringBuilder();
            for (String l : lines) {
                if (l != null) {
                    sb.append(l).append('\n');
                }
            }
            return sb.toString();
        }
    }

    /** @return what it printed on stderr so far */
    public String err() {
        try {
            return Files.readString(err.toPath(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    /** @return its stdout and stderr, for a failure's message */
    public String outputs() {
        return "stdout of " + name + ":\n" + out() + "stderr of " + name + ":\n" + err();
    }

    private String exitCodeNow() {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "(running)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    /** Kills it if it still runs: the JVM under {@code ip netns exec} too. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        err.delete();
    }
}
