package io.rvt.launcher;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress line of a long {@code rvt perf}: once the command has run for {@value #QUIET_MILLIS} ms, a daemon
 * thread rewrites one line on stderr a few times a second with the current row and its iterations. The measuring
 * thread only writes two volatile fields, so progress costs the measurement nothing. {@link #close()} clears the
 * line.
 */
final class Progress implements AutoCloseable {
    /** Runs shorter than this print no progress. */
    static final long QUIET_MILLIS = 2000;
    private static final long REFRESH_MILLIS = 250;

    private final PrintStream err;
    private final long start = System.nanoTime();
    private final Thread thread;
    private volatile String row = "";
    private volatile long done;
    private volatile long target;
    private volatile boolean closed;
    private int printedWidth;

    /**
     * Starts the progress thread, if shown.
     *
     * @param err where the line goes
     * @param shown false for a quiet progress (stderr is not a terminal: a log would fill with rewritten lines)
     */
    Progress(PrintStream err, boolean shown) {
        this.err = err;
        this.thread = new Thread(this::run, "rvt-progress");
        thread.setDaemon(true);
        if (shown) {
            thread.start();
        }
    }

    /**
     * A new row starts.
     *
     * @param label what it measures, e.g. {@code send bw rc 65536 B}
     * @param iterations how many it will run, or 0 if it runs for a time
     */
    void row(String label, long iterations) {
        this.done = 0;
        this.target = iterations;
        this.row = label;
    }

    /**
     * @param iterations iterations done so far in the current row
     */
    void update(long iterations) {
        this.done = iterations;
    }

    private void run() {
        while (!closed) {
            try {
                Thread.sleep(REFRESH_MILLIS); // a refresh period, not a synchronisation
            } catch (InterruptedException e) {
                return;
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (ms >= QUIET_MILLIS) {
                print(ms);
            }
        }
    }

    private synchronized void print(long ms) {
        if (closed) {
            return;
        }
        long t = target;
        String line = String.format(Locale.ROOT, "rvt perf: %s: %d%s iterations, %.1f s", row, done,
                t > 0 ? "/" + t : "", ms / 1000.0);
        err.print("\r" + line + " ".repeat(Math.max(0, printedWidth - line.length())));
        err.flush();
        printedWidth = line.length();
    }

    /**
     * Clears the line if one is shown and prints something else, holding the line back meanwhile (stdout and stderr
     * usually share a terminal).
     *
     * @param printing prints to stdout
     */
    synchronized void printQuietly(Runnable printing) {
        clear();
        printing.run();
    }

    private synchronized void clear() {
        if (printedWidth > 0) {
            err.print("\r" + " ".repeat(printedWidth) + "\r");
            err.flush();
            printedWidth = 0;
        }
    }

    /** Stops the thread and clears the line if one was printed. */
    @Override
    public synchronized void close() {
        closed = true;
        thread.interrupt();
        clear();
    }
}
