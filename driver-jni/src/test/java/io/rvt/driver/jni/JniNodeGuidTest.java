package io.rvt.driver.jni;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A driver-jni HCA's node GUID comes from its name and its ports' addresses and bound UDP ports, not from how many
 * HCAs the JVM made before: the same configuration gives the same GUID again (a bundle restart, a second test), and
 * two HCAs bound at once differ.
 */
class JniNodeGuidTest {
    private static long nodeGuid(JniDriverBuilder b) {
        try (JniDriver d = b.build()) {
            return d.params().props().nodeGuid();
        }
    }

    private static JniDriverBuilder hca(String name, int udpPort) {
        return JniDriver.builder().name(name).address("127.0.0.1").udpPort(udpPort);
    }

    /** A UDP port the kernel just gave out (and took back): one no other HCA of the test binds. */
    private static int freePort() {
        try (JniDriver d = hca("probe", 0).build()) {
            return d.localPort(1);
        }
    }

    @Test
    void shouldGiveTheSameNodeGuidWhenTheSameHcaIsMadeAgain() {
        int port = freePort();
        long first = nodeGuid(hca("guid0", port));
        nodeGuid(hca("other", 0)); // HCAs made in between change nothing

        assertThat(nodeGuid(hca("guid0", port))).isEqualTo(first);
    }

    @Test
    void shouldGiveOtherNodeGuidsWhenTheNameOrThePortDiffers() {
        int port = freePort();

        assertThat(nodeGuid(hca("guid0", port))).isNotEqualTo(nodeGuid(hca("guid1", port)));
        assertThat(nodeGuid(hca("guid0", port))).isNotEqualTo(nodeGuid(hca("guid0", freePort())));
    }

    @Test
    void shouldGiveTwoHcasBoundAtOnceDifferentNodeGuidsWhenBothTakeEphemeralPorts() {
        try (JniDriver a = hca("rvt_jni%d", 0).build(); JniDriver b = hca("rvt_jni%d", 0).build()) {
            assertThat(a.localPort(1)).isNotEqualTo(b.localPort(1));
            assertThat(a.params().props().nodeGuid()).isNotEqualTo(b.params().props().nodeGuid());
            assertThat(a.params().props().nodeGuid() & 0xF).as("low 4 bits").isZero();
        }
    }
}
