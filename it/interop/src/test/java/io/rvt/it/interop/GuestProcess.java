package io.rvt.it.interop;

import java.time.Duration;

/**
 * A command running in the background in the Linux peer's guest ({@link LinuxPeer#spawn}): its output so far, a
 * bounded wait for its end, and a kill that takes its children too (it runs in a session of its own).
 */
public final class GuestProcess implements AutoCloseable {
    private final GuestAgent agent;
    private final String id;
    private final String command;
    /** Set by the first {@link #close()}: its files are gone then, and a later kill would wait out its timeouts. */
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    GuestProcess(GuestAgent agent, String id, String command) {
        this.agent = agent;
        this.id = id;
        this.command = command;
    }

    /** @return the command line, as given */
    public String command() {
        return command;
    }

    /** @return true once the command has ended */
    public boolean isDone() {
        return agent.exitCode(id) >= 0;
    }

    /** @return what it has printed so far (stdout and stderr) */
    public String output() {
        return agent.output(id);
    }

    /**
     * Waits for its end, at most {@code timeout}; it keeps running past the deadline (see {@link #kill()}).
     *
     * @param timeout the longest wait
     * @return how it ended, or a result with {@link GuestResult#timedOut()} true and exit code -1
     * @throws InterruptedException if interrupted
     */
    public GuestResult await(Duration timeout) throws InterruptedException {
        int rc = agent.await(id, timeout);
        return new GuestResult(command, rc, agent.output(id), rc < 0);
    }

    /**
     * Waits until its output contains {@code text}, at most {@code timeout}.
     *
     * @param text what to wait for
     * @param timeout the longest wait
     * @return the output so far
     * @throws AssertionError naming the command and its output if it ends or the deadline passes first
     * @throws InterruptedException if interrupted
     */
    public String awaitOutput(String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean done = isDone(); // before reading: output written before the end is then complete
            String out = output();
            if (out.contains(text)) {
                return out;
            }
            if (done || System.nanoTime() - deadline > 0) {
                throw new AssertionError("guest command '" + command + "' " + (done ? "ended" : "ran " + timeout)
                        + " without printing '" + text + "'; output:\n" + out);
            }
            Thread.sleep(20); // polling a file on the share: the guest has no other way to tell us
        }
    }

    /**
     * Ends it and its children: TERM, then KILL after 5 s.
     *
     * @return how it ended ({@link GuestResult#timedOut()} if it did not end even then)
     * @throws InterruptedException if interrupted
     */
    public GuestResult kill() throws InterruptedException {
        int rc = agent.kill(id);
        return new GuestResult(command, rc, agent.output(id), rc < 0);
    }

    /**
     * Kills it if it still runs and deletes its files in the share. Idempotent: a second call (a test's
     * try-with-resources, then {@link LinuxPeer#close()}) returns at once, where it would have signalled a command
     * whose exit code is gone and waited out the kill's 10 s.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            agent.kill(id);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            agent.forget(id);
        }
    }

    @Override
    public String toString() {
        return "guest command " + id + " '" + command + "'";
    }
}
