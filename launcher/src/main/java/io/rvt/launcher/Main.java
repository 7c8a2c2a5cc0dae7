package io.rvt.launcher;

import io.rvt.api.Device;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * The {@code rvt} command: parses the command line ({@link Options}), starts a {@link Host} with the devices, runs the
 * command, and turns failures into one line on stderr and an exit code.
 *
 * <pre>
 * rvt                      devices, then an RC ping-pong
 * rvt devices [-v]         like ibv_devinfo
 * rvt pingpong             like ibv_rc_pingpong (--transport rc|uc|ud, -s BYTES, -n ITERS)
 * rvt perf                 like perftest, with its flags (-s, -a, -n, -D, -q, -c, -t, -Q, -l, -b, --out_json, ...)
 * rvt stat                 port, QP and fabric counters after a short traffic run
 * </pre>
 * {@code rvt COMMAND --help} prints a command's options ({@link Syntax}). Exit codes: {@value #EXIT_OK} success, {@value #EXIT_FAILURE} failure, {@value #EXIT_USAGE} bad command line.
 * {@code --debug} adds the stack trace of a failure.
 */
public final class Main {
    /** Exit code of a command that did its job. */
    public static final int EXIT_OK = 0;
    /** Exit code of a command that failed while running (no device, a failed work request, corrupted data). */
    public static final int EXIT_FAILURE = 1;
    /** Exit code of a command line that cannot be run (unknown option, impossible value). */
    public static final int EXIT_USAGE = 2;

    private final PrintStream out;
    private final PrintStream err;
    private final Function<Options, Host> hosts;

    /**
     * @param out where results go
     * @param err where errors and progress go
     * @param hosts starts the host a command line asks for
     */
    Main(PrintStream out, PrintStream err, Function<Options, Host> hosts) {
        this.out = out;
        this.err = err;
        this.hosts = hosts;
    }

    /**
     * @param out where results go
     * @param err where errors and progress go
     */
    Main(PrintStream out, PrintStream err) {
        this(out, err, Main::startHost);
    }

    /**
     * Runs {@code rvt} and exits with its code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(new Main(System.out, System.err).run(args));
    }

    /**
     * The host a command line asks for: the embedded OSGi framework, or with {@code --no-osgi} the plain class path
     * (whose simulated network runs as {@code --threading} says); with the driver of {@code --driver}.
     *
     * @param options the command line
     * @return the started host
     */
    static Host startHost(Options options) {
        boolean shell = options.command.equals("shell");
        if (options.noOsgi && shell) {
            throw new UsageException("rvt shell needs OSGi: leave out --no-osgi");
        }
        boolean jni = options.driver == DriverKind.JNI;
        if (jni) {
            JniSetup.requireNativeLibrary();
        }
        if (options.noOsgi) {
            return jni ? PlainJniHost.start(options.jniSetup()) : PlainHost.start(options.fabric(), options.threading);
        }
        HcaConfigurations hcas = jni ? new JniConfigurations(options.jniSetup())
                : new SimConfigurations(options.fabric(), options.threading);
        return FelixHost.start(hcas, bundleDir(), shell);
    }

    /**
     * Where the bundles are: {@code -Drvt.bundles=DIR}, else {@code bundles} beside the launcher's jar or classes
     * directory (both in {@code launcher/target}).
     *
     * @return the directory
     */
    static Path bundleDir() {
        String prop = System.getProperty("rvt.bundles");
        if (prop != null) {
            return Path.of(prop);
        }
        try {
            Path code = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return code.getParent().resolve("bundles");
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("launcher", "target", "bundles");
        }
    }

    /**
     * Runs a command line.
     *
     * @param args the command line
     * @return the exit code
     */
    int run(String... args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (UsageException e) {
            err.println("rvt: " + e.getMessage());
            return EXIT_USAGE;
        }
        for (String d : options.deprecations) {
            err.println("rvt: " + d);
        }
        if (options.version) {
            out.println(VersionInfo.describe(options));
            return EXIT_OK;
        }
        if (options.help) {
            out.println(options.command.equals("default") ? Options.usage() : Syntax.help(options.command));
            return EXIT_OK;
        }
        try (Host host = hosts.apply(options)) {
            dispatch(options, host);
            return EXIT_OK;
        } catch (UsageException e) {
            err.println("rvt: " + e.getMessage());
            return EXIT_USAGE;
        } catch (RuntimeException e) {
            err.println("rvt: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            if (options.debug) {
                e.printStackTrace(err);
            }
            return EXIT_FAILURE;
        }
    }

    private void dispatch(Options o, Host host) {
        int size = o.size > 0 ? o.size : PingPongCommand.DEFAULT_SIZE;
        int iters = o.iters > 0 ? o.iters : PingPongCommand.DEFAULT_ITERS;
        switch (o.command) {
            case "devices" -> new DevicesCommand(out, o.verbose).only(o.list, o.ibDev, o.has("--ib-port") ? o.ibPort
                    : 0).run(host);
            case "pingpong" -> new PingPongCommand(out, o.transport, size, iters).on(o.ibDev, o.link())
                    .cmPort(o.cmPort).remote(o.server, o.peer, o.given)
                    .examples(o.examples(), o.twoProcesses() ? JniSetup.resolve(o.addresses.get(0)) : null).run(host);
            case "perf" -> new PerfCommand(out, err, o).run(host);
            case "shell" -> new ShellCommand(out).run(host);
            case "stat" -> new StatCommand(out, o.iters > 0 ? o.iters : StatCommand.DEFAULT_ITERS, !o.noTraffic,
                    o.fabric().hasFaults()).run(host);
            default -> {
                new DevicesCommand(out, o.verbose).run(host);
                new PingPongCommand(out, Transport.RC, size, iters).run(host);
            }
        }
    }

    /**
     * The two devices a one-JVM test connects, the requester first: the host's first two, or with {@code -d NAME}
     * that device and the host's first other one.
     *
     * @param host a host
     * @param ibDev the device {@code -d} names, or null
     * @param command the command, for the errors
     * @return the requester's device and the responder's
     * @throws UsageException if no device has that name
     */
    static List<Device> requirePair(Host host, String ibDev, String command) {
        List<Device> devs = requireDevices(host, 2, command);
        if (ibDev == null) {
            return devs.subList(0, 2);
        }
        Device first = null;
        for (Device d : devs) {
            if (d.name().equals(ibDev)) {
                first = d;
            }
        }
        if (first == null) {
            throw new UsageException("option --ib-dev: no device '" + ibDev + "' (devices: "
                    + String.join(", ", devs.stream().map(Device::name).toList()) + ")");
        }
        Device other = devs.get(0) == first ? devs.get(1) : devs.get(0);
        return List.of(first, other);
    }

    /**
     * @param host a host
     * @param n how many devices the command needs
     * @param command the command, for the error
     * @return the host's devices
     * @throws IllegalStateException if there are fewer than {@code n}
     */
    static List<Device> requireDevices(Host host, int n, String command) {
        List<Device> devs = host.devices();
        if (devs.isEmpty()) {
            throw new IllegalStateException("no RDMA device found (" + host.description() + ")");
        }
        if (devs.size() < n) {
            throw new IllegalStateException(command + " needs " + n + " devices, found " + devs.size() + " ("
                    + host.description() + ")");
        }
        return devs;
    }
}
