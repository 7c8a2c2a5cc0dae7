package io.rvt.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * Busy loops in processes of their own ({@code sh -c 'while :; do :; done'}), in the test's session and so competing
 * with its processes for the cores as another user's build would; each bounded by {@code timeout} so that none
 * outlives a killed test, and stopped by {@link #close()}.
 */
final class CpuHogs implements AutoCloseable {
    private final List<Process> hogs = new ArrayList<>();

    private CpuHogs() {
    }

    /**
     * @param count how many busy loops
     * @param maxSeconds the longest any may run
     * @return the running hogs
     * @throws java.io.IOException if one cannot be started
     */
    static CpuHogs start(int count, int maxSeconds) throws java.io.IOException {
        CpuHogs h = new CpuHogs();
        try {
            for (int i = 0; i < count; i++) {
                h.hogs.add(new ProcessBuilder("timeout", Integer.toString(maxSeconds), "sh", "-c",
                        "while :; do :; done").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start());
            }
        } catch (java.io.IOException | RuntimeException e) {
            h.close();
            throw e;
        }
        return h;
    }

    /** @return true while every hog runs */
    boolean allAlive() {
        return hogs.stream().allMatch(Process::isAlive);
    }

    @Override
    public void close() {
        for (Process p : hogs) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
    }
}
