package io.rvt.launcher;

import io.rvt.driver.jni.JniDriverComponent;
import java.util.List;
import java.util.Map;

/**
 * driver-jni's HCAs {@code roce0} and {@code roce1} of a {@link JniSetup}, as two factory configurations of PID
 * {@value JniDriverComponent#PID}.
 *
 * @param setup the HCAs' addresses, UDP ports and MTU
 */
record JniConfigurations(JniSetup setup) implements HcaConfigurations {
    @Override
    public DriverKind driver() {
        return DriverKind.JNI;
    }

    /** @return who runs the port engines: the command's polls (progress, the default) or the ports' threads */
    @Override
    public Threading threadingMode() {
        return setup.threading();
    }

    @Override
    public String bundle() {
        return "driver-jni";
    }

    @Override
    public String factoryPid() {
        return JniDriverComponent.PID;
    }

    /** driver-jni's port engines spin briefly, then wait in {@code poll}, whatever the command. */
    @Override
    public List<Map<String, Object>> properties(boolean spin) {
        return setup.count() == 1 ? List.of(setup.properties(0)) : List.of(setup.properties(0), setup.properties(1));
    }

    @Override
    public String network() {
        return ": " + setup.describe();
    }
}
