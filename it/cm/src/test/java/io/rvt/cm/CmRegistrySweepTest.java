package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.cm.impl.CmRegistry;
import io.rvt.core.RvtDevice;
import org.junit.jupiter.api.Test;

/** A CM whose device went away while its clock stood still is not kept for the JVM's life. */
class CmRegistrySweepTest {

    @Test
    void shouldForgetTheCmOfADeviceRemovedWhileItsFabricClockStoodStill() {
        try (SimLab first = new SimLab(31); SimLab second = new SimLab(32)) {
            SimLab.Host gone = first.host();
            int withIt = CmRegistry.engineCount();
            // removed with its CM handle still open, and the first fabric never runs again: the CM's removal
            // check is a timer on that fabric's virtual time
            ((RvtDevice) gone.device).unregister();
            second.host();
            assertThat(CmRegistry.engineCount()).as("CMs registered: the new device's, not the removed one's")
                    .isEqualTo(withIt);
            assertThat(gone.device.isAlive()).isFalse();
        }
    }
}
