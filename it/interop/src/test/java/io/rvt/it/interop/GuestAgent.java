package io.rvt.it.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The host's half of the guest's command channel: files in the 9p share that the guest's {@code rvt-agent} polls
 * (linux-peer/image/rootfs/usr/local/sbin/rvt-agent describes the protocol; guest.sh is the same for a shell).
 * A command goes in as {@code ID.sh}; its output grows in {@code ID.out}; its exit code appears in {@code ID.rc};
 * {@code ID.kill} signals its session.
 */
final class GuestAgent {
    /** How often the host looks for a command's end: the guest's agent itself looks every 100 ms. */
    private static final long POLL_MILLIS = 20;

    private final Path dir;
    private final BooleanSupplier guestAlive;
    private final AtomicLong ids = new AtomicLong();
    private final String prefix = "j" + ProcessHandle.current().pid() + "-" + System.nanoTime() + "-";

    /**
     * @param dir the share's {@code cmd} folder
     * @param guestAlive false once QEMU has ended (a wait then ends at once)
     */
    GuestAgent(Path dir, BooleanSupplier guestAlive) {
        this.dir = dir;
        this.guestAlive = guestAlive;
    }

    /** Writes the command file (atomically: the agent never sees half of it) and returns the command's id. */
    String submit(String... cmd) {
        if (cmd.length == 0) {
            throw new IllegalArgumentException("no command given");
        }
        String id = prefix + ids.incrementAndGet();
        StringBuilder script = new StringBuilder("exec");
        for (String arg : cmd) {
            script.append(' ').append(quote(arg));
        }
        script.append('\n');
        try {
            Path tmp = dir.resolve(id + ".sh.tmp");
            Files.writeString(tmp, script, StandardCharsets.UTF_8);
            Files.move(tmp, dir.resolve(id + ".sh"), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot submit a guest command in " + dir, e);
        }
        return id;
    }

    /** @return the exit code, or -1 while the command runs */
    int exitCode(String id) {
        try {
            return Integer.parseInt(Files.readString(dir.resolve(id + ".rc")).trim());
        } catch (NoSuchFileException e) {
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the command has ended, at most {@code timeout}.
     *
     * @return its exit code, or -1 if it still runs at the deadline or the guest has gone
     */
    int await(String id, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int rc;
        while ((rc = exitCode(id)) < 0) {
            if (System.nanoTime() - deadline > 0 || !guestAlive.getAsBoolean()) {
                return -1;
            }
            Thread.sleep(POLL_MILLIS); // polling a file on the share: the guest has no other way to tell us
        }
        return rc;
    }

    /** @return what the command has printed so far */
    String output(String id) {
        try {
            return Files.readString(dir.resolve(id + ".out"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Asks the agent to send {@code signal} (TERM, KILL, INT...) to the command's session. */
    void signal(String id, String signal) {
        try {
            Files.writeString(dir.resolve(id + ".kill"), signal);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Ends the command: TERM, then KILL if it is still there after 5 s; waits (at most 5 s more) for its end.
     *
     * @return its exit code, or -1 if it did not end
     */
    int kill(String id) throws InterruptedException {
        if (exitCode(id) >= 0) {
            return exitCode(id);
        }
        signal(id, "TERM");
        int rc = await(id, Duration.ofSeconds(5));
        if (rc < 0) {
            signal(id, "KILL");
            rc = await(id, Duration.ofSeconds(5));
        }
        return rc;
    }

    /** Deletes the command's files. */
    void forget(String id) {
        for (String ext : new String[] {".sh", ".run", ".pid", ".out", ".rc", ".kill"}) {
            try {
                Files.deleteIfExists(dir.resolve(id + ext));
            } catch (IOException e) {
                // the share may be gone with a stopped peer
            }
        }
    }

    /** @return {@code s} as one word for bash: single-quoted, a quote inside written {@code '\''} */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
