package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.spi.agent.ThreadingMode;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One threading vocabulary: {@code --threading} takes progress, dedicated, shared and invoker, the API's
 * {@link ThreadingMode} names and Aeron's shared, and hands driver-sim's and driver-jni's Config Admin the same word;
 * the old {@code network} still works with a deprecation line saying what it is here.
 */
class ThreadingVocabularyTest {
    private final CommandLine cli = new CommandLine();

    @Test
    void shouldSpellEveryEngineModeOfTheApiAsTheLauncherDoes() {
        List<String> options = Arrays.stream(Threading.values()).map(Threading::option).toList();
        assertThat(options).containsExactly("progress", "dedicated", "shared", "invoker");
        for (ThreadingMode m : ThreadingMode.values()) {
            assertThat(Threading.parse(m.name().toLowerCase(Locale.ROOT)).name()).isEqualTo(m.name());
        }
    }

    @Test
    void shouldHandDriverSimsConfigAdminTheSameWord() {
        FabricOptions realTime = Options.parse().fabric();
        for (Threading t : List.of(Threading.PROGRESS, Threading.DEDICATED, Threading.SHARED)) {
            assertThat(SimConfigurations.properties(realTime, t, "sim0", true)).containsEntry("threading", t.option());
        }
        // what the shell asks for: its own threads, one for all in real time, the event loop's when deterministic
        assertThat(SimConfigurations.properties(realTime, "sim0", false)).containsEntry("threading", "shared");
        assertThat(SimConfigurations.properties(Options.parse("--deterministic").fabric(), "sim0", false))
                .containsEntry("threading", "dedicated");
    }

    @Test
    void shouldTakeNetworkAsWhatItMeantWithADeprecationLine() {
        assertThat(Options.parse("pingpong", "--no-osgi", "--threading", "network").threading)
                .isEqualTo(Threading.SHARED);
        assertThat(Options.parse("stat", "--deterministic", "--threading", "network").threading)
                .isEqualTo(Threading.DEDICATED);
        Options jni = Options.parse("perf", "--driver", "jni", "--udp-port", "6000", "--threading", "network");
        assertThat(jni.threading).isEqualTo(Threading.DEDICATED);
        assertThat(jni.jniSetup().properties(0)).containsEntry("threading", "dedicated");
        assertThat(jni.deprecations).containsExactly("--threading network is deprecated: it is 'dedicated' here "
                + "(a thread per port); say --threading dedicated");
        assertThat(Options.parse("pingpong", "--threading", "shared").deprecations).isEmpty();

        assertThat(cli.run("pingpong", "--no-osgi", "--threading", "network", "-n", "50")).as(cli.err()).isZero();
        assertThat(cli.err()).isEqualTo("rvt: --threading network is deprecated: it is 'shared' here (one thread for "
                + "the fabric and both HCAs); say --threading shared" + System.lineSeparator());
    }

    @Test
    void shouldRefuseSharedWhereNoOneThreadRunsEverything() {
        cli.assertUsage("option --threading shared applies to the simulated fabric, not to --driver jni (each port "
                + "runs on a thread of its own: dedicated)", "pingpong", "--driver", "jni", "--threading", "shared");
        cli.assertUsage("option --threading shared needs a real-time fabric (a deterministic one runs the fabric and "
                + "both HCAs on its event loop's thread: dedicated)", "stat", "--deterministic", "--threading",
                "shared");
        cli.assertUsage("option --threading: unknown threading 'NETWORK' (progress, dedicated, shared or invoker)",
                "pingpong", "--threading", "NETWORK");
    }

    @Test
    @Timeout(120)
    void shouldRunTheFabricAndEachHcaOnThreadsOfTheirOwnWhenDedicated() {
        try (PlainHost host = PlainHost.start(Options.parse().fabric(), Threading.DEDICATED)) {
            assertThat(host.threading()).isEqualTo(Threading.DEDICATED);
            assertThat(host.fabric().threading()).isEqualTo(ThreadingMode.DEDICATED);
            new PingPongCommand(cli.out, Transport.RC, 64, 100).run(host);
            List<String> names = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                    .map(Thread::getName).toList();
            assertThat(names).as("no shared network thread").noneMatch(n -> n.startsWith(PlainHost.NETWORK_THREAD));
            assertThat(names).anyMatch(n -> n.contains(host.fabric().name()));
        }
        assertThat(cli.out()).contains("100 iters in");
        cli.reset();
        assertThat(cli.run("perf", "--no-osgi", "--threading", "dedicated", "--test", "send", "-n", "200"))
                .as(cli.err()).isZero();
        assertThat(cli.out()).contains(" Threading       : dedicated (the network's own threads)",
                "; --threading dedicated)");
    }
}
