package io.rvt.it.interop.tools;

import io.rvt.api.Device;
import io.rvt.driver.jni.JniDriver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a {@link Tool}: as a program ({@link #main}: its own HCA on {@code --bind}, the result line on standard
 * output, exit status 0 only if the run was good) or on a device a test made ({@link #run}).
 */
final class ToolRunner {
    private ToolRunner() {
    }

    /**
     * A tool's {@code main}: prints the result line and exits with 0 if every message arrived right, 1 if not, 2 for
     * a bad command line.
     *
     * @param tool the tool
     * @param args its command line, the Linux tool's options plus rvt's ({@link CommonOptions})
     */
    static void main(Tool tool, String[] args) {
        ToolArgs a;
        CommonOptions o;
        try {
            a = ToolArgs.parse(tool.name(), tool.options(), args);
            tool.check(a);
            o = CommonOptions.of(a);
            if (o.bind() == null) {
                throw new IllegalArgumentException(tool.name() + ": --bind ADDR (the HCA's IP address) is required");
            }
        } catch (IllegalArgumentException e) {
            System.out.println(new ToolResult(tool.name(), "-", false, Map.of(), e.getMessage()).format());
            System.out.flush();
            System.exit(2);
            return;
        }
        int status;
        try (Hca hca = Hca.open(o.bind(), o.mtu())) {
            ToolResult r = execute(tool, hca.device(), hca.driver(), a, o, System.out);
            System.out.println(r.format());
            System.out.flush();
            if (o.hold() && r.ok()) {
                holdUntilReleased(o);
            }
            status = r.ok() ? 0 : 1;
        } catch (RuntimeException e) {
            System.out.println(new ToolResult(tool.name(), tool.role(a), false, Map.of(), e.toString()).format());
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    /**
     * Runs a tool on a device of the caller's.
     *
     * @param tool the tool
     * @param device the HCA
     * @param driver its driver (for its ICRC error count), or null
     * @param out where its progress lines go
     * @param args its command line (rvt's {@code --bind} and {@code --mtu} do not apply: the device is made)
     * @return its result
     * @throws IllegalArgumentException for a bad command line or an option rvt does not offer ({@link Tool#check})
     */
    static ToolResult run(Tool tool, Device device, JniDriver driver, PrintStream out, String... args) {
        ToolArgs a = ToolArgs.parse(tool.name(), tool.options(), args);
        tool.check(a);
        return execute(tool, device, driver, a, CommonOptions.of(a), out);
    }

    private static ToolResult execute(Tool tool, Device device, JniDriver driver, ToolArgs a, CommonOptions o,
            PrintStream out) {
        ToolContext ctx = new ToolContext(tool.name(), device, o, out);
        String role = tool.role(a);
        Map<String, String> facts = new LinkedHashMap<>();
        try {
            facts.putAll(tool.run(ctx, a));
            facts.putAll(PortSnapshot.of(device, driver));
            return new ToolResult(tool.name(), role, true, facts, null);
        } catch (ToolFailure e) {
            facts.putAll(PortSnapshot.of(device, driver));
            return new ToolResult(tool.name(), role, false, facts, e.getMessage());
        } catch (Exception e) {
            facts.putAll(PortSnapshot.of(device, driver));
            return new ToolResult(tool.name(), role, false, facts, e.toString());
        }
    }

    /** Waits for a line or the end of standard input, at most the run's timeout. */
    private static void holdUntilReleased(CommonOptions o) {
        CompletableFuture<Void> released = CompletableFuture.runAsync(() -> {
            try {
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                // standard input closed: released too
            }
        });
        try {
            released.get(o.timeout().toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            System.out.println("hold: not released within " + o.timeout().toSeconds() + " s; ending");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // the reader failed: nothing to hold for
        }
    }
}
