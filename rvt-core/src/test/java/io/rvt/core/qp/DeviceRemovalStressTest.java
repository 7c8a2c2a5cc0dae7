package io.rvt.core.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.core.LoopbackTestDriver;
import io.rvt.testkit.RemovalStress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A device removed 100 times in the middle of loopback traffic (a driver whose {@code do_send} runs
 * {@code rvt_ruc_loopback} on the poster's thread; queued engine work runs there too): one thread posts single SENDs
 * and RDMA WRITEs, another polls, the test thread removes the device after a random number of completions
 * ({@link RemovalStress}). Every accepted work request completes exactly once; nothing completes that was not
 * outstanding; a refused post completes nothing.
 */
class DeviceRemovalStressTest {
    private static final int ROUNDS = 100;

    @Test
    void shouldCompleteEveryWorkRequestExactlyOnceWhenTheDeviceIsRemovedMidTraffic() throws Exception {
        SplittableRandom rnd = new SplittableRandom(12);
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            LoopbackTestDriver driver = new LoopbackTestDriver();
            QpEnv env = new QpEnv(driver);
            RvtQp a = env.rc();
            RvtQp b = env.rc();
            env.connect(a, b);
            RemovalStress.Pair pair = new RemovalStress.Pair(a, b, env.scq, env.rcq, env.reg(64), env.reg(64));
            String f = RemovalStress.round(pair, driver::drain, rnd.nextInt(1, 60), env.dev::unregister, 30);
            if (f != null) {
                failures.add("round " + round + ": " + f);
            }
        }
        assertThat(failures).isEmpty();
    }
}
