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
import io.rvt.launcher.RunBundles;
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
 * An embedded Apache Felix (the launcher's {@link EmbeddedFelix}, as {@code rvt} boots it) with the bundles
 * {@code it-bundles.bndrun} resolves (Felix SCR, Config Admin and Metatype, rvt-api, rvt-core, rvt-transport,
 * driver-sim, rvt-cm and the test application; driver-jni on demand), all started. The jars come from
 * {@code target/it-bundles} (copied there by the build), each found by its symbolic name. The system bundle exports
 * the Config Admin and Metatype APIs from the test's class path, so the test uses those services typed; rvt's own
 * types stay inside the framework, and the test reaches the application through {@code java.*} service types.
 */
final class Felix implements AutoCloseable {
    /** The bundle set these tests boot, which bnd-resolver-maven-plugin resolves and checks in every build. */
    static final Path BNDRUN = Path.of(System.getProperty("rvt.it.bndrun", "it-bundles.bndrun"));
    static final String DRIVER_JNI = "io.rvt.driver.jni";
    /**
     * The bundles installed and started at launch, by symbolic name, in start order: {@link #BNDRUN}'s
     * {@code -runbundles} less driver-jni (installed only by the tests that want it), libraries first
     * ({@link RunBundles#librariesFirst}, as {@code ./rvt}'s host orders its own bndrun's).
     */
    static final List<String> BASE_BUNDLES = baseBundles();
    /** The rvt bundles (and the test application) by symbolic name: the {@code io.rvt.*} of {@link #BASE_BUNDLES}. */
    static final List<String> RVT_BUNDLES = BASE_BUNDLES.stream().filter(b -> b.startsWith("io.rvt.")).toList();
    static final String DRIVER_SIM = "io.rvt.driver.sim";
    /** driver-jni's jar: copied with the others but installed only by the tests that want it. */
    static final String DRIVER_JNI_JAR = "driver-jni";
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
        felix.installAndStart(bundleDir(), RunBundles.jarNames(bundleDir(), BASE_BUNDLES, BNDRUN.toString()));
    }

    private static List<String> baseBundles() {
        List<String> out = new ArrayList<>(RunBundles.read(BNDRUN).keySet());
        if (!out.remove(DRIVER_JNI)) {
            throw new IllegalStateException(BNDRUN + " -runbundles has no " + DRIVER_JNI);
        }
        return RunBundles.librariesFirst(out);
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
