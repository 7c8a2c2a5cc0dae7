package io.rvt.launcher;

import java.util.List;

/**
 * The commands with {@code --driver jni} on the default host: Felix with the driver-jni bundle (its native library
 * from {@code Bundle-NativeCode}) and two factory configurations of {@code io.rvt.driver.jni}.
 */
class JniFelixCommandsTest extends JniCommandsTest {
    @Override
    List<String> hostOptions() {
        return List.of();
    }

    @Override
    String hostDescription() {
        return "driver-jni in OSGi (Felix, Config Admin io.rvt.driver.jni): RoCEv2 over UDP on 127.0.0.1";
    }
}
