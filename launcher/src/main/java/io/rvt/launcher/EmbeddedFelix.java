package io.rvt.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * rvt's one embedding of Apache Felix, used by the launcher's {@link FelixHost} and by the integration tests
 * ({@code it/tests}): a framework found through {@link FrameworkFactory} on the class path, its storage cleaned on first
 * init, the system bundle exporting what the embedder shares with the bundles, and bundle jars installed by name from
 * one directory and started in the order given (a jar that is missing or a bundle that does not resolve fails the
 * start, naming it).
 */
public final class EmbeddedFelix implements AutoCloseable {
    private final Framework framework;

    private EmbeddedFelix(Framework framework) {
        this.framework = framework;
    }

    /**
     * Starts a framework with no bundle but the system bundle.
     *
     * @param storage the framework's storage directory (cleaned on first init)
     * @param systemPackages what the system bundle exports from the class path
     *     ({@code org.osgi.framework.system.packages.extra}), e.g. {@code org.osgi.service.cm;version=1.6.1}
     * @param properties further framework properties (e.g. {@code felix.log.level})
     * @return the started framework
     * @throws BundleException if it does not start
     * @throws IllegalStateException if there is no OSGi framework on the class path
     */
    public static EmbeddedFelix start(Path storage, String systemPackages, Map<String, String> properties)
            throws BundleException {
        Map<String, String> config = new HashMap<>(properties);
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, systemPackages);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class, EmbeddedFelix.class.getClassLoader())
                .findFirst().orElseThrow(() -> new IllegalStateException("no OSGi framework on the class path"));
        Framework framework = factory.newFramework(config);
        framework.start();
        return new EmbeddedFelix(framework);
    }

    /**
     * Installs bundles, then starts them in the same order.
     *
     * @param dir the directory holding the jars
     * @param names the jars' names without {@code .jar}
     * @return the bundles, in order
     * @throws BundleException if one cannot be installed or started (e.g. a requirement nothing provides)
     * @throws IllegalStateException if a jar is missing
     */
    public List<Bundle> installAndStart(Path dir, List<String> names) throws BundleException {
        List<Bundle> installed = new ArrayList<>();
        for (String name : names) {
            installed.add(install(dir, name));
        }
        for (Bundle b : installed) {
            b.start();
        }
        return installed;
    }

    /**
     * @param dir the directory holding the jar
     * @param name the jar's name without {@code .jar}
     * @return the installed bundle, not started
     * @throws BundleException if it cannot be installed
     * @throws IllegalStateException if the jar is missing
     */
    public Bundle install(Path dir, String name) throws BundleException {
        Path jar = dir.resolve(name + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("bundle " + jar + " is missing");
        }
        return context().installBundle(jar.toUri().toString());
    }

    /** @return the system bundle's context */
    public BundleContext context() {
        return framework.getBundleContext();
    }

    /** @return the framework, e.g. to adapt it to {@code FrameworkWiring} */
    public Framework framework() {
        return framework;
    }

    /**
     * Stops the framework and waits for it: every bundle stopped, every service withdrawn.
     *
     * @param timeoutMillis how long to wait at the most
     * @return the event that ended the wait ({@link FrameworkEvent#WAIT_TIMEDOUT} if it did not stop in time)
     * @throws BundleException if the framework cannot be stopped
     * @throws InterruptedException if interrupted while waiting
     */
    public FrameworkEvent stop(long timeoutMillis) throws BundleException, InterruptedException {
        framework.stop();
        return framework.waitForStop(timeoutMillis);
    }

    /** Stops the framework, waiting up to 20 s; an interrupt is kept for the caller. */
    @Override
    public void close() throws BundleException {
        try {
            stop(20_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
