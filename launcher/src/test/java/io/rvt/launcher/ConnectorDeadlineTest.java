package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.rvt.cm.CmConfig;
import org.junit.jupiter.api.Test;

/**
 * What docs/cli.md says of a connection with no server: the launcher's CM tries 16 times, 1.07 s each, and gives up
 * (ETIMEDOUT) after about 17 s, long before the launcher's own 60 s limit on a connection.
 */
class ConnectorDeadlineTest {
    @Test
    void shouldLetTheCmGiveUpOnAMissingServerLongBeforeTheLaunchersDeadline() {
        CmConfig cm = Connector.realTime();
        double perTry = 4.096e-6 * (1L << cm.cmResponseTimeout());
        assertThat(perTry).as("seconds per try").isCloseTo(1.07, within(0.01));
        assertThat(cm.maxCmRetries()).as("retries after the first REQ").isEqualTo(15);
        double total = (cm.maxCmRetries() + 1) * perTry;
        assertThat(total).as("seconds until ETIMEDOUT").isCloseTo(17.2, within(0.1));
        assertThat(Connector.DEADLINE.toSeconds()).as("the launcher's limit").isEqualTo(60).isGreaterThan((long) total * 3);
    }
}
