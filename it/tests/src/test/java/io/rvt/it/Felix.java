package io.rvt.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.rvt.launcher.EmbeddedFelix;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * An embedded Apache Felix (the launcher's {@link EmbeddedFelix}, as {@code rvt} boots it) with Felix SCR, Config Admin and Metatype and the rvt bundles (rvt-api, rvt-core,
 * rvt-transport, driver-sim) plus the test application, all started. The jars come from {@code target/it-bundles}
 * (copied there by the build, without versions in their names). The system bundle exports the Config Admin and
 * Metatype APIs from the test's class path, so the test uses those services typed; rvt's own types stay inside the
 * framework, and the test reaches the application through {@code java.*} service types.
 */
final class Felix implements AutoCloseable {
    /** Bundle jars installed and started at launch, in order. */
    static final List<String> BASE_BUNDLES = List.of("org.osgi.util.function", "org.osgi.util.promise",
            "org.osgi.service.component", "org.apache.felix.scr", "org.apache.felix.configadmin",
            "org.osgi.service.log", "org.apache.felix.metatype", "rvt-api", "rvt-core", "rvt-transport", "driver-sim", "rvt-cm", "rvt-it-app");
    /** The rvt bundles (and the test application) by symbolic name. */
    static final List<String> RVT_BUNDLES = List.of("io.rvt.api", "io.rvt.core", "io.rvt.transport",
            "io.rvt.driver.sim", "io.rvt.cm", "io.rvt.it.app");
    static final String DRIVER_SIM = "io.rvt.driver.sim";
    /** driver-jni's jar: copied with the others but installed only by the tests that want it. */
    static final String DRIVER_JNI_JAR = "driver-jni";
    static final String DRIVER_JNI = "io.rvt.driver.jni";
    static final String DEVICE = "io.rvt.api.Device";
    static final String DRIVER = "io.rvt.api.spi.RvtDriver";

    /** Launches so far in this JVM: each framework gets a cache directory of its own. */
    private static final AtomicInteger LAUNCHES = new AtomicInteger();

    private final EmbeddedFelix felix;
    private final Framework framework;

    /**
     * Launches the framework in a clean cache and starts the base bundles.
     *
     * @throws Exception if the framework or a bundle does not start
     */
    Felix() throws Exception {
        // A directory per launch: Felix extracts a bundle's native library to a path made of the bundle id and
        // revision, and the JVM refuses a library path still loaded by a class loader of an earlier framework.
        Path storage = Path.of(System.getProperty("rvt.it.felix.cache", "target/felix-cache"),
                Integer.toString(LAUNCHES.incrementAndGet()));
        felix = EmbeddedFelix.start(storage, "org.osgi.service.cm;version=1.6.0,org.osgi.service.metatype;version=1.4.0",
                Map.of());
        framework = felix.framework();
        felix.installAndStart(bundleDir(), BASE_BUNDLES);
    }

    /** @return where the build copied the bundle jars */
    static Path bundleDir() {
        return Path.of(System.getProperty("rvt.it.bundles", "target/it-bundles"));
    }

    /** @return the path of a bundle jar copied by the build */
    static Path jar(String artifactId) {
        return bundleDir().resolve(artifactId + ".jar");
    }

    /**
     * @param artifactId the jar's artifact id (its file name without ".jar")
     * @return the installed, not yet started bundle
     * @throws BundleException if it cannot be installed
     */
    Bundle install(String artifactId) throws BundleException {
        return felix.install(bundleDir(), artifactId);
    }

    BundleContext context() {
        return felix.context();
    }

    /** @return the bundle with that symbolic name */
    Bundle bundle(String symbolicName) {
        for (Bundle b : context().getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    /** @return every bundle but the system bundle */
    List<Bundle> bundles() {
        List<Bundle> out = new ArrayList<>();
        for (Bundle b : context().getBundles()) {
            if (b.getBundleId() != 0) {
                out.add(b);
            }
        }
        return out;
    }

    /**
     * @param clazz  the service's type name (need not be visible to the test)
     * @param filter an LDAP filter, or null
     * @return the matching service references (none: empty)
     */
    List<ServiceReference<?>> references(String clazz, String filter) {
        try {
            ServiceReference<?>[] refs = context().getAllServiceReferences(clazz, filter);
            return refs == null ? List.of() : List.of(refs);
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /**
     * A service of a type the test shares with the bundles ({@code java.*}, Config Admin, Metatype).
     *
     * @param type   the service type
     * @param filter an LDAP filter, or null
     * @return the service object (waits until one is registered)
     */
    <T> T service(Class<T> type, String filter) throws Exception {
        Poll.until(type.getName() + " " + filter + " registered", () -> !references(type.getName(), filter).isEmpty());
        return type.cast(context().getService(references(type.getName(), filter).get(0)));
    }

    /** @return Config Admin */
    ConfigurationAdmin configurationAdmin() throws Exception {
        return service(ConfigurationAdmin.class, null);
    }

    /** @return the {@code rvt.driver} property of every device service now registered */
    TreeSet<String> deviceDrivers() {
        TreeSet<String> out = new TreeSet<>();
        for (ServiceReference<?> r : references(DEVICE, null)) {
            out.add((String) r.getProperty("rvt.driver"));
        }
        return out;
    }

    /** Waits until the devices of exactly these drivers are registered. */
    void awaitDevices(String... drivers) throws Exception {
        TreeSet<String> expected = new TreeSet<>(List.of(drivers));
        Poll.until("device services of drivers " + expected, () -> deviceDrivers().equals(expected),
                () -> "(now " + deviceDrivers() + ")");
    }

    /**
     * Updates a bundle from its jar and refreshes it: the old revision's class loader is then dropped.
     *
     * @param bundle the bundle
     * @throws Exception if the update fails or the refresh does not finish in time
     */
    void updateAndRefresh(Bundle bundle) throws Exception {
        bundle.update();
        CountDownLatch refreshed = new CountDownLatch(1);
        framework.adapt(FrameworkWiring.class).refreshBundles(List.of(bundle), e -> {
            if (e.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                refreshed.countDown();
            }
        });
        assertThat(refreshed.await(Poll.DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("refresh finished").isTrue();
    }

    /** @return whether the framework can resolve the bundle */
    boolean resolve(Bundle bundle) {
        return framework.adapt(FrameworkWiring.class).resolveBundles(List.of(bundle));
    }

    /** Stops the framework and waits for it: every bundle is stopped, every service withdrawn. */
    @Override
    public void close() throws Exception {
        FrameworkEvent e = felix.stop(Poll.DEADLINE.toMillis());
        assertThat(e.getType()).as("framework stopped").isEqualTo(FrameworkEvent.STOPPED);
    }
}
