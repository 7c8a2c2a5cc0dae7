package io.rvt.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * {@code rvt --version}: the project's version (from a resource Maven filters at build time), the host a command
 * would run in (the embedded Apache Felix with its version, or with {@code --no-osgi} the plain class path or the JPMS
 * module path, whichever the launcher runs on) and the Java runtime.
 */
final class VersionInfo {
    /** The filtered resource beside this class, {@code version=${project.version}}. */
    static final String RESOURCE = "rvt-version.properties";
    /** The class of the OSGi framework the launcher embeds. */
    private static final String FELIX = "org.apache.felix.framework.Felix";

    private VersionInfo() {
    }

    /**
     * @param options the command line ({@code --no-osgi} chooses the host)
     * @return three lines: {@code rvt VERSION}, {@code host: ...}, {@code java: ...}
     */
    static String describe(Options options) {
        return "rvt " + version() + System.lineSeparator() + "host: " + host(options) + System.lineSeparator()
                + "java: " + java();
    }

    /** @return the project's version, e.g. {@code 0.1.0-SNAPSHOT}, from {@link #RESOURCE} */
    static String version() {
        try (InputStream in = VersionInfo.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the launcher has no " + RESOURCE + " (build it with Maven)");
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "");
            if (v.isEmpty() || v.contains("${")) {
                throw new IllegalStateException(RESOURCE + " was not filtered by the build: version=" + v);
            }
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + RESOURCE, e);
        }
    }

    /**
     * @param options the command line
     * @return where a command of this command line runs its devices
     */
    static String host(Options options) {
        if (!options.noOsgi) {
            return "OSGi, Apache Felix " + felixVersion() + " with Felix SCR and Config Admin (--no-osgi: the "
                    + "plain class path)";
        }
        Module launcher = VersionInfo.class.getModule();
        return launcher.isNamed() ? "the JPMS module path (module " + launcher.getName() + "), no OSGi"
                : "the plain class path, no OSGi";
    }

    /** @return the Java runtime: version, VM and vendor */
    static String java() {
        return Runtime.version() + " (" + System.getProperty("java.vm.name") + ", " + System.getProperty("java.vendor")
                + ")";
    }

    /** @return the Bundle-Version of the Felix framework jar on the launcher's path, or why there is none */
    static String felixVersion() {
        try {
            Class<?> felix = Class.forName(FELIX, false, VersionInfo.class.getClassLoader());
            Path jar = Path.of(felix.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isRegularFile(jar)) {
                try (JarFile f = new JarFile(jar.toFile())) {
                    Manifest m = f.getManifest();
                    String v = m == null ? null : m.getMainAttributes().getValue("Bundle-Version");
                    if (v != null) {
                        return v;
                    }
                }
            }
            String v = felix.getPackage().getImplementationVersion();
            return v != null ? v : "(version unknown: " + jar + ")";
        } catch (ClassNotFoundException e) {
            return "(not on the launcher's path)";
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return "(version unknown: " + e + ")";
        }
    }
}
