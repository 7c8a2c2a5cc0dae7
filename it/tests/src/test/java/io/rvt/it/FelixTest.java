package io.rvt.it;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every Felix test shares: each test launches its own framework (with the test application) and stops it, after
 * which no thread of the driver under test may be left.
 */
abstract class FelixTest {
    Felix felix;
    App app;

    @BeforeEach
    final void launchFramework() throws Exception {
        felix = new Felix();
        app = new App(felix);
    }

    @AfterEach
    final void stopFramework() throws Exception {
        felix.close();
        Poll.until("no driver thread after the framework stopped", () -> driverThreads().isEmpty(),
                this::driverThreads);
        afterFrameworkStopped();
    }

    /** @return the live threads of the driver under test */
    abstract List<String> driverThreads();

    /** More checks once the framework stopped (none by default). */
    void afterFrameworkStopped() throws Exception {
    }
}
