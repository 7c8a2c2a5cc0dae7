package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Two real {@code rvt} processes on one machine, as a user runs them: a server ({@code --server}) and a client
 * ({@code HOST}), each with one driver-jni HCA on UDP 4791 of its own loopback address, connected through rvt-cm.
 * Both must finish, print their results, and agree on each other's QP numbers and PSNs.
 */
class TwoProcessIT {
    /** Loopback addresses of this run: 127.14.x.1 and .2 (Linux routes all of 127/8 to lo). */
    private static final String NET = "127.14." + ProcessHandle.current().pid() % 250 + ".";
    static final Pattern LOCAL = Pattern.compile("local address: +LID 0x[0-9a-f]{4}, (QPN 0x[0-9a-f]{6}, PSN "
            + "0x[0-9a-f]{6})");
    static final Pattern REMOTE = Pattern.compile("remote address: +LID 0x[0-9a-f]{4}, (QPN 0x[0-9a-f]{6}, PSN "
            + "0x[0-9a-f]{6})");

    @Test
    void shouldPingPongBetweenAServerAndAClientProcess() throws Exception {
        pingPong(null, NET + "1", NET + "2", List.of("--no-osgi"), List.of("--no-osgi"), 18515, "RC");
    }

    @Test
    void shouldPingPongOverUcBetweenAnOsgiServerAndAPlainClient() throws Exception {
        pingPong(null, NET + "3", NET + "4", List.of(), List.of("--no-osgi"), 18600, "UC");
    }

    /**
     * Runs {@code rvt pingpong --server} and {@code rvt pingpong SERVER} and checks both outputs.
     *
     * @param netns the namespaces of server and client ({@code [server, client]}), or null for this one
     * @param server the server's address
     * @param client the client's address
     * @param serverHost options of the server's host
     * @param clientHost options of the client's host
     * @param port the CM port
     * @param transport RC or UC
     * @throws Exception if a child cannot be run
     */
    static void pingPong(String[] netns, String server, String client, List<String> serverHost,
            List<String> clientHost, int port, String transport) throws Exception {
        List<String> s = new ArrayList<>(List.of("--driver", "jni", "--address", server));
        s.addAll(serverHost);
        s.addAll(List.of("pingpong", "--server", "-p", Integer.toString(port), "-c", transport, "-s", "1000"));
        List<String> c = new ArrayList<>(List.of("--driver", "jni", "--address", client));
        c.addAll(clientHost);
        c.addAll(List.of("pingpong", bare(server), "-p", Integer.toString(port), "-c", transport, "-s", "1000", "-n",
                "200"));
        try (RvtProcess srv = RvtProcess.start("server", netns == null ? null : netns[0], s.toArray(String[]::new))) {
            srv.awaitLine("waiting for a client");
            try (RvtProcess cli = RvtProcess.start("client", netns == null ? null : netns[1],
                    c.toArray(String[]::new))) {
                assertThat(cli.exitCode()).as("client: " + cli.out() + cli.stderr()).isZero();
                assertThat(srv.exitCode()).as("server: " + srv.out() + srv.stderr()).isZero();
                for (RvtProcess p : List.of(srv, cli)) {
                    assertThat(p.out()).as(p.out()).contains("400000 bytes in ", "200 iters in ",
                            "(" + transport + "; every message checked; measured on driver-jni");
                }
                // each side's own QPN and PSN are what the other side was told
                assertThat(group(LOCAL, srv.out())).isEqualTo(group(REMOTE, cli.out()));
                assertThat(group(LOCAL, cli.out())).isEqualTo(group(REMOTE, srv.out()));
                assertThat(srv.stderr() + cli.stderr()).doesNotContain("rvt:");
            }
        }
    }

    /** @return the address without an IPv6 scope, as a client names its server */
    static String bare(String address) {
        int pct = address.indexOf('%');
        return pct < 0 ? address : address.substring(0, pct);
    }

    static String group(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in %s", p, text).isTrue();
        return m.group(1);
    }
}
