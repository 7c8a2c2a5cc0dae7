package io.rvt.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The one list of the bundles {@link FelixHost} boots: {@code felix-host.bndrun}'s {@code -runbundles}, which
 * bnd-resolver-maven-plugin resolves and checks in every build, packaged with the launcher's classes (the build
 * copies the file as a resource), so a bundle added there is one edit: the host installs what the bndrun lists, found
 * by symbolic name among the jars of its bundle directory. Karaf's features are checked against the same file
 * ({@code FelixHostBundlesTest}). {@code it/tests}' Felix installs its own bndrun's {@code -runbundles} the same way
 * ({@link #read}, {@link #librariesFirst}, {@link #jarNames}).
 */
public final class RunBundles {
    /** The resource the build copies {@code felix-host.bndrun} to, beside this class. */
    static final String RESOURCE = "felix-host.bndrun";
    /** A {@code -runbundles} entry: symbolic name and version range. */
    private static final Pattern ENTRY = Pattern.compile("([A-Za-z0-9_.-]+);version='([^']+)'");
    /** The drivers' symbolic names begin so: a host installs its one driver itself, after the others. */
    private static final String DRIVER_PREFIX = "io.rvt.driver.";
    /** The system bundle exports rvt-api from the class path: never installed as a bundle. */
    private static final String API = "io.rvt.api";

    private RunBundles() {
    }

    /**
     * @param bndrun a bndrun file's text
     * @return its {@code -runbundles}: each entry's symbolic name and version range, in the file's order
     */
    public static Map<String, String> parse(String bndrun) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : bndrun.replace("\\\n", "").split("\n")) {
            if (line.startsWith("-runbundles:")) {
                Matcher m = ENTRY.matcher(line);
                while (m.find()) {
                    out.put(m.group(1), m.group(2));
                }
            }
        }
        return out;
    }

    /**
     * @param bndrun a bndrun file
     * @return its {@code -runbundles}, as {@link #parse} gives them
     * @throws UncheckedIOException if the file cannot be read
     */
    public static Map<String, String> read(Path bndrun) {
        try {
            return parse(Files.readString(bndrun));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + bndrun + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param symbolicNames bundles by symbolic name
     * @return the same in start order: libraries (any but {@code io.rvt.*}) before rvt's own bundles, each group in
     *         the order given
     */
    public static List<String> librariesFirst(Collection<String> symbolicNames) {
        List<String> out = new ArrayList<>(symbolicNames);
        out.sort(Comparator.comparing((String bsn) -> bsn.startsWith("io.rvt.")));
        return out;
    }

    /** @return the packaged {@code felix-host.bndrun}'s {@code -runbundles} */
    static Map<String, String> packaged() {
        try (InputStream in = RunBundles.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not packaged beside " + RunBundles.class.getName()
                        + " (build the launcher: mvn -pl launcher -am package)");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @return the symbolic names every host installs, in start order: the packaged {@code -runbundles} less rvt-api
     *         and the drivers, libraries before rvt's own bundles
     */
    static List<String> hostBundles() {
        List<String> out = new ArrayList<>();
        for (String bsn : packaged().keySet()) {
            if (!bsn.equals(API) && !bsn.startsWith(DRIVER_PREFIX)) {
                out.add(bsn);
            }
        }
        return librariesFirst(out);
    }

    /** @return {@link #jarNames(Path, List, String)} of felix-host.bndrun's bundles */
    static List<String> jarNames(Path dir, List<String> symbolicNames) {
        return jarNames(dir, symbolicNames, RESOURCE);
    }

    /**
     * @param dir a bundle directory
     * @param symbolicNames the bundles wanted
     * @param bndrun the file that lists them, named when one is missing
     * @return the jar name (without {@code .jar}) of each, in order, as {@link EmbeddedFelix#installAndStart} takes
     *         them
     * @throws IllegalStateException naming the first bundle no jar in {@code dir} is
     */
    public static List<String> jarNames(Path dir, List<String> symbolicNames, String bndrun) {
        Map<String, String> byName = new HashMap<>();
        try (Stream<Path> jars = Files.list(dir)) {
            for (Path jar : jars.filter(p -> p.getFileName().toString().endsWith(".jar")).toList()) {
                String bsn = symbolicName(jar);
                if (bsn != null) {
                    String file = jar.getFileName().toString();
                    byName.put(bsn, file.substring(0, file.length() - ".jar".length()));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the bundle directory " + dir + ": " + e.getMessage(), e);
        }
        List<String> out = new ArrayList<>();
        for (String bsn : symbolicNames) {
            String name = byName.get(bsn);
            if (name == null) {
                throw new IllegalStateException("bundle " + bsn + " (" + bndrun
                        + " -runbundles) is missing: no jar in " + dir + " has that symbolic name");
            }
            out.add(name);
        }
        return out;
    }

    /**
     * @param jar a jar file
     * @return the jar's Bundle-SymbolicName without its directives, or null if it has none
     * @throws IOException if the jar cannot be read
     */
    public static String symbolicName(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            Manifest m = f.getManifest();
            String bsn = m == null ? null : m.getMainAttributes().getValue("Bundle-SymbolicName");
            return bsn == null ? null : bsn.split(";")[0].trim();
        }
    }
}
