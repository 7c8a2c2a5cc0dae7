package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --server} and {@code HOST}: what they set up, and every command line they refuse with one line. */
class TwoProcessOptionsTest {
    private final CommandLine cli = new CommandLine();

    @Test
    void shouldGiveAClientOrServerOneHcaOnTheRoceV2PortOfItsAddress() {
        Options client = Options.parse("--driver", "jni", "--address", "127.0.0.2", "pingpong", "127.0.0.1", "-p",
                "19000");
        assertThat(client.peer).isEqualTo("127.0.0.1");
        assertThat(client.server).isFalse();
        assertThat(client.cmPort).isEqualTo(19000);
        assertThat(client.jniSetup().addresses()).containsExactly("127.0.0.2");
        assertThat(client.jniSetup().udpPorts()).containsExactly(JniSetup.ROCEV2_PORT);
        assertThat(client.jniSetup().properties(0).get("peers")).isEqualTo(new String[0]);
        Options server = Options.parse("perf", "--server", "--driver", "jni", "--test", "write");
        assertThat(server.server).isTrue();
        assertThat(server.peer).isNull();
        assertThat(server.jniSetup().count()).isEqualTo(1);
        assertThat(server.jniSetup().describe()).isEqualTo("RoCEv2 over UDP on 127.0.0.1 port 4791");
        // one JVM keeps its two HCAs
        assertThat(Options.parse("--driver", "jni", "pingpong").jniSetup().count()).isEqualTo(2);
    }

    @Test
    void shouldRefuseTwoProcessesOnTheSimulatedFabric() {
        cli.assertUsage("option --server: the simulated fabric lives in one process; two processes need --driver jni",
                "pingpong", "--server");
        cli.assertUsage("HOST '127.0.0.1': the simulated fabric lives in one process", "perf", "127.0.0.1");
    }

    @Test
    void shouldTakeUdThroughRdmaCmBetweenProcessesWithOneQp() {
        cli.assertUsage("option --qp 2: UD through rdma_cm between two processes serves one QP per CM port", "--driver",
                "jni", "perf", "--server", "-R", "-c", "UD", "-q", "2");
        assertThat(Options.parse("--driver", "jni", "perf", "--server", "-R", "-c", "UD").rdmaCm).isTrue();
        assertThat(Options.parse("--driver", "jni", "perf", "--server", "-R", "-c", "UC").rdmaCm).isTrue();
    }

    /** perftest's -T: rdma_cm's type of service, so with -R between two processes only. */
    @Test
    void shouldTakeTheTypeOfServiceWithRdmaCmBetweenTwoProcesses() {
        assertThat(Options.parse("--driver", "jni", "perf", "--server", "-R", "-T", "96").tos).isEqualTo(96);
        assertThat(Options.parse("--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.1", "-R",
                "--tos=0x20").tos).isEqualTo(32);
        cli.assertUsage("option --tos applies between two processes with -R (rdma_cm's type of service, as "
                + "perftest's); without -R give --tclass", "--driver", "jni", "perf", "--server", "-T", "96");
        cli.assertUsage("option --tos applies between two processes with -R", "perf", "-R", "-T", "96");
        cli.assertUsage("option --tos: 256 is not a type of service (0 to 255)", "--driver", "jni", "perf",
                "--server", "-R", "-T", "256");
    }

    /** perftest's --reversed: the server sends; between two processes over the TCP exchange only. */
    @Test
    void shouldTakeReversedBetweenTwoProcessesWithoutRdmaCm() {
        assertThat(Options.parse("--driver", "jni", "perf", "--server", "--reversed").reversed).isTrue();
        assertThat(Options.parse("--driver", "jni", "--address", "127.0.0.2", "perf", "127.0.0.1", "--test",
                "ib_write_bw", "--reversed").reversed).isTrue();
        cli.assertUsage("option --reversed swaps the sending and receiving sides of two processes (--server or HOST)",
                "perf", "--reversed");
        cli.assertUsage("option --reversed with -R is refused: perftest's -R --reversed swaps rdma_cm's sides too",
                "--driver", "jni", "perf", "--server", "-R", "--reversed");
        cli.assertUsage("option --reversed with -g (multicast) is not built", "--driver", "jni", "perf", "--server",
                "-g", "--reversed");
    }

    @Test
    void shouldRefuseAClientAimedAtItsOwnAddress() {
        cli.assertUsage("HOST 127.0.0.1 is this process's own address (--address 127.0.0.1)", "--driver", "jni",
                "pingpong", "127.0.0.1");
        cli.assertUsage("HOST ::1 is this process's own address (--address ::1)", "--driver", "jni", "--address",
                "::1", "perf", "::1");
    }

    @Test
    void shouldRefuseWhatATwoProcessCommandCannotUse() {
        cli.assertUsage("option --server waits for a client: leave out HOST '127.0.0.2'", "--driver", "jni",
                "pingpong", "--server", "127.0.0.2");
        cli.assertUsage("option --address: a server process has one HCA, got two addresses (127.0.0.1,127.0.0.2)",
                "--driver", "jni", "--address", "127.0.0.1,127.0.0.2", "pingpong", "--server");
        cli.assertUsage("option --udp-port: a client process's HCA binds the RoCEv2 port 4791", "--driver", "jni",
                "--udp-port", "5000", "--address", "127.0.0.2", "pingpong", "127.0.0.1");
        // rvt-cm's IP header carries one family (the examples' TCP exchange may differ from the RDMA path's)
        cli.assertUsage("HOST ::1 and --address 127.0.0.2 are not of one IP family", "--driver", "jni", "--address",
                "127.0.0.2", "pingpong", "-R", "::1");
        // perftest's TCP exchange too: its socket is IPv4 only, its GID may be IPv6's
        assertThat(Options.parse("--driver", "jni", "--address", "::1", "perf", "127.0.0.2").peer)
                .isEqualTo("127.0.0.2");
        assertThat(Options.parse("--driver", "jni", "--address", "::1", "pingpong", "127.0.0.2").peer)
                .isEqualTo("127.0.0.2");
        cli.assertUsage("HOST 'no.such.host.invalid' is not an IP address or known host", "--driver", "jni",
                "pingpong", "no.such.host.invalid");
        cli.assertUsage("unexpected argument '127.0.0.3' after command 'pingpong'", "--driver", "jni", "pingpong",
                "127.0.0.2", "127.0.0.3");
        cli.assertUsage("unexpected argument '127.0.0.1' after command 'stat'", "stat", "127.0.0.1");
        cli.assertUsage("option --server does not apply to 'devices'", "devices", "--server");
    }

    @Test
    void shouldSayWhatDoesNotRunBetweenTwoProcessesYet() {
        cli.assertUsage("option --transport: UD between two processes through rvt-cm (-R) is not built", "--driver",
                "jni", "--no-osgi", "--address", "127.14.250.2", "pingpong", "127.14.250.1", "-R", "-c", "UD");
    }

    @Test
    void shouldTakeTheExamplesFlagsWithTheirMeanings() {
        Options o = Options.parse("--driver", "jni", "--address", "127.0.0.2", "pingpong", "-c", "127.0.0.1", "-r",
                "64", "-l", "3", "-e", "-g", "1", "-N", "-n", "7");
        assertThat(o.peer).isEqualTo("127.0.0.1");
        assertThat(o.chk).isTrue();
        assertThat(o.transport).isEqualTo(Transport.RC);
        assertThat(o.link().gidIndex()).isEqualTo(1);
        assertThat(o.examples()).isEqualTo(new ExamplesPingPong.Params(Transport.RC, 4096, 7, 64, 3, true, true,
                18515));
        Options ud = Options.parse("--driver", "jni", "--address", "127.0.0.2", "pingpong", "127.0.0.1", "-c", "ud",
                "--chk");
        assertThat(ud.transport).isEqualTo(Transport.UD);
        assertThat(ud.chk).isTrue();
        // ibv_ud_pingpong's default size
        assertThat(ud.examples().size()).isEqualTo(1024);
        assertThat(Options.parse("--driver", "jni", "pingpong", "--server", "-R").examples()).isNull();
    }

    @Test
    void shouldRefuseWhatRvtCannotHonourWithWhy() {
        for (String f : List.of("-o", "-O", "-P")) {
            cli.assertUsage("is refused: rvt has no on-demand paging", "--driver", "jni", "pingpong", "--server", f);
        }
        cli.assertUsage("option --ts is refused: rvt's completions carry no hardware timestamps", "--driver", "jni",
                "pingpong", "--server", "-t");
        cli.assertUsage("option --dm is refused: rvt's HCAs have no device memory", "--driver", "jni", "pingpong",
                "--server", "-j");
        cli.assertUsage("option --rx-depth applies to the examples' protocol between two processes", "pingpong",
                "-r", "10");
        cli.assertUsage("option --events applies to the examples' protocol between two processes", "--driver", "jni",
                "pingpong", "--server", "-R", "-e");
        cli.assertUsage("option --sl: 16 is not a service level", "--driver", "jni", "pingpong", "--server", "-l",
                "16");
        cli.assertUsage("option --rdma_cm: connects two processes", "pingpong", "-R");
    }

    @Test
    void shouldCarryTheClientsTestInTheRequestsPrivateData() {
        RemotePingPong.Params p = new RemotePingPong.Params(Transport.UC, 1000, 200, 16);
        byte[] wire = p.encode();
        assertThat(wire.length).isLessThanOrEqualTo(io.rvt.cm.ConnectionManager.MAX_REQ_PRIVATE_DATA);
        assertThat(RemotePingPong.Params.decode(wire)).isEqualTo(p);
        assertThat(RemotePingPong.Params.decode(new byte[] {1, 2, 3})).isNull();
        wire[4] = 9; // no such transport
        assertThat(RemotePingPong.Params.decode(wire)).isNull();
    }
}
