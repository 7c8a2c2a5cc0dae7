package io.rvt.it.semver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import aQute.bnd.differ.Baseline;
import aQute.bnd.differ.DiffPluginImpl;
import aQute.bnd.header.Attrs;
import aQute.bnd.header.Parameters;
import aQute.bnd.osgi.Constants;
import aQute.bnd.osgi.EmbeddedResource;
import aQute.bnd.osgi.Instructions;
import aQute.bnd.osgi.Jar;
import aQute.bnd.osgi.Processor;
import aQute.bnd.osgi.Resource;
import aQute.bnd.service.diff.Delta;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Every exported package is baselined, and the check bites in each: every module of the source tree that exports a
 * package (an {@code @Export} in a {@code package-info.java}) turns bnd-baseline-maven-plugin on and has its previous
 * release in {@code baseline/repository}; and for every exported package of every such bundle as this build made it
 * ({@code target/baselined}, copied by the build), a copy of the bundle with one public method of that package taken
 * out of its class file, package version untouched, is flagged by bnd's baseliner (the one the plugin runs, on the
 * same baseline jar) as a {@code MAJOR} change needing the next major version, which is what fails the plugin's goal.
 * The unchanged bundle is not flagged (the control). Packages exported only to friends ({@code x-friends}, e.g.
 * {@code io.rvt.api.spi.engine}) are not public API and are left out of the check, as rvt-api's pom leaves them.
 */
class EveryExportedPackageBaselinedIT {
    private static final Path ROOT = Path.of(System.getProperty("rvt.semver.root", "../..")).normalize();
    private static final Path BUNDLES = Path.of(System.getProperty("rvt.semver.bundles", "target/baselined"));
    private static final String BASELINE_VERSION = System.getProperty("rvt.baseline.version", "1.0.0");
    /** Modules the root pom builds only with its jdk22 profile, and whether this build has them. */
    private static final Set<String> JDK22_MODULES = Set.of("rvt-ffm");
    private static final boolean JDK22 = Boolean.getBoolean("rvt.semver.jdk22");
    /** A pom's own artifactId: the first one after its parent element. */
    private static final Pattern ARTIFACT_ID = Pattern.compile("</parent>.*?<artifactId>([^<]+)</artifactId>",
            Pattern.DOTALL);
    private static final Set<String> OBJECT_METHODS = Set.of("equals", "hashCode", "toString", "clone", "finalize");

    @Test
    void shouldBaselineEveryModuleThatExportsAPackage() throws IOException {
        Map<String, Path> exporting = exportingModules();
        assertThat(exporting).as("modules exporting a package under %s", ROOT)
                .containsKeys("rvt-api", "rvt-transport", "rvt-cm", "driver-sim", "driver-jni", "testkit");

        for (Map.Entry<String, Path> e : exporting.entrySet()) {
            String artifactId = e.getKey();
            String pom = Files.readString(e.getValue().resolve("pom.xml"));
            assertThat(pom).as("%s exports packages: its pom must turn the baseline check on", artifactId)
                    .contains("<bnd.baseline.skip>false</bnd.baseline.skip>")
                    .contains("<url>file://${project.basedir}/../baseline/repository</url>");
            Path jar = baselineJar(artifactId);
            assertThat(jar).as("%s exports packages: its previous release in baseline/repository", artifactId)
                    .isRegularFile();
            assertThat(Files.readString(Path.of(jar + ".sha1")).trim()).as("%s's SHA-1 beside it", jar)
                    .isEqualTo(sha1(jar));
        }

        Set<String> expected = new TreeSet<>(exporting.keySet());
        if (!JDK22) {
            expected.removeAll(JDK22_MODULES);
        }
        Set<String> copied = new TreeSet<>();
        try (Stream<Path> jars = Files.list(BUNDLES)) {
            jars.map(p -> p.getFileName().toString().replaceFirst("\\.jar$", "")).forEach(copied::add);
        }
        assertThat(copied).as("the bundles it/semver's pom copies to %s (add a new exporting module as a test"
                + " dependency there)", BUNDLES).isEqualTo(expected);
    }

    /**
     * For every public exported package of every bundle: the bundle with one public method of the package removed is
     * flagged against this build's bundle as the baseline (what the next release's check does: a removal at an
     * unchanged version fails), and against the baseline in the tree with the package declared at its released
     * version (as {@code BaselineBitesIT} does: a package already at its next major since the release may lose more
     * members before the next one, which is semantic versioning, not a hole). A package new since the release is
     * accepted at any version, so only the first check applies to it.
     */
    @Test
    void shouldFlagAMajorChangeWhenAPublicMethodIsRemovedFromAnyExportedPackage() throws Exception {
        List<String> flagged = new ArrayList<>();
        List<String> flaggedAgainstTheTree = new ArrayList<>();
        try (Stream<Path> jars = Files.list(BUNDLES)) {
            for (Path bundle : jars.sorted().toList()) {
                String artifactId = bundle.getFileName().toString().replaceFirst("\\.jar$", "");
                Path base = baselineJar(artifactId);
                Set<String> packages = publicExports(bundle);
                assertThat(packages).as("%s's public exported packages", artifactId).isNotEmpty();

                Map<String, Baseline.Info> unchanged = baseline(bundle, base);
                for (String pkg : packages) {
                    Baseline.Info info = unchanged.get(pkg);
                    assertThat(info).as("%s in the report of %s", pkg, artifactId).isNotNull();
                    assertThat(info.mismatch).as("%s as built, in %s: %s %s -> %s", pkg, artifactId,
                            info.packageDiff.getDelta(), info.olderVersion, info.newerVersion).isFalse();
                    assertThat(baseline(bundle, bundle).get(pkg).packageDiff.getDelta())
                            .as("%s against itself", pkg).isEqualTo(Delta.UNCHANGED);
                }

                for (String pkg : packages) {
                    Baseline.Info asBuilt = unchanged.get(pkg);
                    boolean released = asBuilt.packageDiff.getDelta() != Delta.ADDED;
                    Path broken = Files.createTempFile(Path.of("target"), artifactId + "-", ".jar");
                    String removed = removeOnePublicMethod(bundle, pkg, null, broken);
                    Baseline.Info next = baseline(broken, bundle).get(pkg);
                    String what = artifactId + " " + pkg + " " + next.newerVersion + " without " + removed;
                    Baseline.Info tree = null;
                    if (released) {
                        // declared at its released version, as BaselineBitesIT does: a package whose major moved
                        // since the release may lose more before the next one
                        removeOnePublicMethod(bundle, pkg, asBuilt.olderVersion.toString(), broken);
                        tree = baseline(broken, base).get(pkg);
                    }
                    Files.delete(broken);

                    assertThat(next.packageDiff.getDelta()).as(what).isEqualTo(Delta.MAJOR);
                    assertThat(next.mismatch).as("%s, against the bundle as built: flagged", what).isTrue();
                    assertThat(next.suggestedVersion.getMajor()).as("the version suggested for %s", what)
                            .isEqualTo(next.newerVersion.getMajor() + 1);
                    flagged.add(what);
                    if (released) {
                        assertThat(tree.packageDiff.getDelta()).as("%s against %s", what, base.getFileName())
                                .isEqualTo(Delta.MAJOR);
                        assertThat(tree.mismatch).as("%s at its released %s, against %s: flagged", what,
                                tree.olderVersion, base.getFileName()).isTrue();
                        assertThat(tree.suggestedVersion.getMajor()).as("the version suggested for %s", what)
                                .isEqualTo(tree.olderVersion.getMajor() + 1);
                        flaggedAgainstTheTree.add(what + " at " + tree.newerVersion);
                    }
                }
            }
        }
        System.out.println("flagged MAJOR against the bundle as built:\n  " + String.join("\n  ", flagged)
                + "\nand, declared at its released version, against baseline/repository:\n  "
                + String.join("\n  ", flaggedAgainstTheTree));
        assertThat(flagged).as("packages checked").hasSizeGreaterThanOrEqualTo(10);
        assertThat(flaggedAgainstTheTree).as("released packages flagged against baseline/repository")
                .hasSizeGreaterThanOrEqualTo(10);
    }

    /** @return each module of the tree (it/ aside) that exports a package, by artifactId, with its directory */
    private static Map<String, Path> exportingModules() throws IOException {
        Map<String, Path> out = new TreeMap<>();
        try (Stream<Path> dirs = Files.list(ROOT)) {
            for (Path dir : dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).toList()) {
                Path src = dir.resolve("src/main/java");
                if (dir.getFileName().toString().equals("it") || !Files.isDirectory(src)) {
                    continue;
                }
                boolean exports;
                try (Stream<Path> files = Files.walk(src)) {
                    exports = files.filter(f -> f.getFileName().toString().equals("package-info.java"))
                            .anyMatch(EveryExportedPackageBaselinedIT::exports);
                }
                if (exports) {
                    Matcher m = ARTIFACT_ID.matcher(Files.readString(dir.resolve("pom.xml")));
                    assertThat(m.find()).as("artifactId in %s/pom.xml", dir).isTrue();
                    out.put(m.group(1), dir);
                }
            }
        }
        return out;
    }

    private static boolean exports(Path packageInfo) {
        try {
            return Pattern.compile("@(org\\.osgi\\.annotation\\.bundle\\.)?Export\\b")
                    .matcher(Files.readString(packageInfo)).find();
        } catch (IOException e) {
            throw new AssertionError("cannot read " + packageInfo, e);
        }
    }

    private static Path baselineJar(String artifactId) {
        return ROOT.resolve("baseline/repository/io/rvt/baseline").resolve(artifactId).resolve(BASELINE_VERSION)
                .resolve(artifactId + "-" + BASELINE_VERSION + ".jar");
    }

    /** @return the bundle's exported packages less those exported to friends only */
    private static Set<String> publicExports(Path bundle) throws Exception {
        try (Jar jar = new Jar(bundle.toFile())) {
            Parameters exports = new Parameters(jar.getManifest().getMainAttributes().getValue(Constants.EXPORT_PACKAGE));
            Set<String> out = new TreeSet<>();
            for (Map.Entry<String, Attrs> e : exports.entrySet()) {
                if (!e.getValue().containsKey("x-friends:")) {
                    out.add(e.getKey());
                }
            }
            return out;
        }
    }

    /** @return bnd's baseline of {@code newer} against {@code older}, per package */
    private static Map<String, Baseline.Info> baseline(Path newer, Path older) throws Exception {
        try (Processor reporter = new Processor(); Jar n = new Jar(newer.toFile()); Jar o = new Jar(older.toFile())) {
            Baseline baseline = new Baseline(reporter, new DiffPluginImpl());
            Map<String, Baseline.Info> out = new TreeMap<>();
            for (Baseline.Info info : baseline.baseline(n, o, new Instructions("*"))) {
                out.put(info.packageName, info);
            }
            assertThat(reporter.getErrors()).as("bnd's errors baselining %s", newer).isEmpty();
            return out;
        }
    }

    /**
     * Writes {@code out}: {@code bundle} with one public method of package {@code pkg} taken out of its class file,
     * the first (by class and method name) that no other class of the bundle declares too (so it overrides nothing
     * the bundle has and nothing there overrides it) and that is none of {@code Object}'s; and {@code pkg} exported at
     * {@code version} unless that is null.
     *
     * @return {@code Class.method(descriptor)} of the method removed
     */
    private static String removeOnePublicMethod(Path bundle, String pkg, String version, Path out) throws Exception {
        try (Jar jar = new Jar(bundle.toFile())) {
            String dir = pkg.replace('.', '/') + "/";
            Map<String, Integer> declaredIn = new TreeMap<>();
            Map<String, List<String>> publicMethods = new TreeMap<>();
            for (Map.Entry<String, Resource> e : jar.getResources().entrySet()) {
                String path = e.getKey();
                if (!path.endsWith(".class") || path.endsWith("module-info.class")) {
                    continue;
                }
                ClassReader reader = new ClassReader(bytes(e.getValue()));
                boolean candidate = path.startsWith(dir) && path.indexOf('/', dir.length()) < 0
                        && !path.contains("$") && (reader.getAccess() & Opcodes.ACC_PUBLIC) != 0;
                reader.accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                            String[] exceptions) {
                        declaredIn.merge(name + descriptor, 1, Integer::sum);
                        if (candidate && (access & Opcodes.ACC_PUBLIC) != 0
                                && (access & (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE)) == 0
                                && !name.startsWith("<") && !OBJECT_METHODS.contains(name)) {
                            publicMethods.computeIfAbsent(path, k -> new ArrayList<>()).add(name + descriptor);
                        }
                        return null;
                    }
                }, ClassReader.SKIP_CODE);
            }
            for (Map.Entry<String, List<String>> c : publicMethods.entrySet()) {
                for (String method : new TreeSet<>(c.getValue())) {
                    if (declaredIn.get(method) == 1) {
                        String path = c.getKey();
                        byte[] edited = without(bytes(jar.getResource(path)), method);
                        jar.putResource(path, new EmbeddedResource(edited, 0L));
                        if (version != null) {
                            declare(jar, pkg, version);
                        }
                        jar.write(out.toFile());
                        return path.substring(dir.length(), path.length() - ".class".length()) + "." + method;
                    }
                }
            }
            throw new AssertionError("no public method of " + pkg + " in " + bundle + " to remove");
        }
    }

    /** Changes the version at which the jar's manifest exports {@code pkg}. */
    private static void declare(Jar jar, String pkg, String version) throws Exception {
        java.util.jar.Manifest manifest = jar.getManifest();
        Parameters exports = new Parameters(manifest.getMainAttributes().getValue(Constants.EXPORT_PACKAGE));
        exports.get(pkg).put(Constants.VERSION_ATTRIBUTE, version);
        manifest.getMainAttributes().putValue(Constants.EXPORT_PACKAGE, exports.toString());
        jar.setManifest(manifest);
    }

    /** @return the class file without the method {@code nameAndDescriptor} */
    private static byte[] without(byte[] classFile, String nameAndDescriptor) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(0);
        Set<String> removed = new HashSet<>();
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                if ((name + descriptor).equals(nameAndDescriptor)) {
                    removed.add(name + descriptor);
                    return null;
                }
                return super.visitMethod(access, name, descriptor, signature, exceptions);
            }
        }, 0);
        assertThat(removed).as("removed from the class file").containsExactly(nameAndDescriptor);
        return writer.toByteArray();
    }

    private static byte[] bytes(Resource resource) throws Exception {
        try (java.io.InputStream in = resource.openInputStream()) {
            return in.readAllBytes();
        }
    }

    private static String sha1(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
