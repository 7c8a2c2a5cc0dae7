package io.rvt.launcher;

import java.lang.reflect.Method;
import java.util.Collection;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The activation failures Declarative Services records (DS 1.4's {@code ComponentConfigurationDTO.failure}, state
 * {@code FAILED_ACTIVATION}), as the host waits for device services: a driver component that cannot start (its socket
 * taken: {@code bind 127.0.0.1:4791 failed: EADDRINUSE}) ends the wait at once with its own message, where the wait
 * would otherwise run out after {@link FelixHost#DEADLINE_MILLIS}. The DS runtime API lives in the framework (its
 * bundle), not on the host's class path, so it is reached through the runtime bundle's class loader and reflection.
 */
final class ScrFailures {
    /** {@code ComponentConfigurationDTO.FAILED_ACTIVATION}. */
    static final int FAILED_ACTIVATION = 16;
    private static final String RUNTIME = "org.osgi.service.component.runtime.ServiceComponentRuntime";
    private static final String DESCRIPTION = "org.osgi.service.component.runtime.dto.ComponentDescriptionDTO";

    private ScrFailures() {
    }

    /**
     * @param ctx a bundle context of the framework
     * @return the root cause's message of the first component configuration that failed to activate, or null if
     *         none did (or the DS runtime is not there)
     */
    static String first(BundleContext ctx) {
        ServiceReference<?> ref = ctx.getServiceReference(RUNTIME);
        if (ref == null) {
            return null;
        }
        Object scr = ctx.getService(ref);
        if (scr == null) {
            return null;
        }
        try {
            Bundle owner = ref.getBundle();
            Class<?> runtime = owner.loadClass(RUNTIME);
            Method descriptions = runtime.getMethod("getComponentDescriptionDTOs", Bundle[].class);
            Method configurations = runtime.getMethod("getComponentConfigurationDTOs", owner.loadClass(DESCRIPTION));
            for (Object d : (Collection<?>) descriptions.invoke(scr, (Object) new Bundle[0])) {
                for (Object c : (Collection<?>) configurations.invoke(scr, d)) {
                    if (c.getClass().getField("state").getInt(c) == FAILED_ACTIVATION) {
                        return rootMessage((String) c.getClass().getField("failure").get(c));
                    }
                }
            }
            return null;
        } catch (ReflectiveOperationException | ClassCastException e) {
            return null; // not DS 1.4 or later: the wait's deadline ends it as before
        } finally {
            ctx.ungetService(ref);
        }
    }

    /**
     * @param failure a printed stack trace ({@code Exception.printStackTrace})
     * @return the message of its innermost cause ({@code "Caused by: io.rvt.driver.jni.UdpException: bind ..."}
     *         gives {@code "bind ..."}), or its first line if it names no cause
     */
    static String rootMessage(String failure) {
        if (failure == null || failure.isBlank()) {
            return "a component failed to activate";
        }
        String line = failure.lines().findFirst().orElse(failure);
        for (String l : failure.lines().toList()) {
            if (l.startsWith("Caused by: ")) {
                line = l.substring("Caused by: ".length());
            }
        }
        int colon = line.indexOf(": ");
        return colon > 0 && !line.substring(0, colon).contains(" ") ? line.substring(colon + 2) : line;
    }
}
