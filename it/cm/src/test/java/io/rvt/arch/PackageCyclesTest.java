package io.rvt.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No package cycle between the packages of one module, as JDK 17's {@code jdeps} sees the module's classes (issue
 * 28, item 6): jdeps is run in process ({@link ToolProvider}) on each module's jar or classes directory with
 * {@code -verbose:package -filter:none}, and the strongly connected components of its package graph are the
 * cycles. jdeps rather than a library (ArchUnit) because it ships with the JDK the build already needs and reads
 * exactly the bytecode dependencies, annotations' and constants' included.
 *
 * <p>A cycle fails the build unless it lies inside one of {@link #KNOWN}'s, each with the work that removes it; a
 * known cycle that shrank or went passes (delete its entry then).
 */
class PackageCyclesTest {
    /** The cycles still there, by module, each with why it is left and what removes it. */
    private static final Map<String, List<Set<String>>> KNOWN = Map.of();

    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s+(\\S+)");

    @ParameterizedTest
    @ValueSource(strings = {"io.rvt.api.Device", "io.rvt.core.RvtDevice", "io.rvt.transport.Transport",
        "io.rvt.cm.ConnectionManager", "io.rvt.driver.sim.SimDriver", "io.rvt.driver.jni.JniDriver"})
    void shouldHaveNoPackageCycleInsideTheModule(String className) throws Exception {
        Class<?> c = Class.forName(className);
        Path classes = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, Set<String>> graph = packageGraph(classes);
        assertThat(graph).as("jdeps found the packages of %s", classes).containsKey(c.getPackageName());
        if (graph.size() > 1) { // the output was read: a module's packages depend on each other somewhere
            assertThat(graph.values().stream().mapToInt(Set::size).sum()).as("edges between %s", graph.keySet())
                    .isPositive();
        }
        List<Set<String>> cycles = cycles(graph);
        String module = moduleOf(c);
        List<Set<String>> known = KNOWN.getOrDefault(module, List.of());
        for (Set<String> cycle : cycles) {
            assertThat(known).as("module %s: packages %s depend on each other in a cycle (jdeps -verbose:package %s);"
                    + " edges: %s", module, cycle, classes, edges(graph, cycle))
                    .anySatisfy(k -> assertThat(k).containsAll(cycle));
        }
    }

    /** The check itself finds a cycle: two packages naming each other, and none in a chain. */
    @org.junit.jupiter.api.Test
    void shouldFindACycleAndOnlyACycle() {
        Map<String, Set<String>> g = new HashMap<>();
        g.put("a", Set.of("b"));
        g.put("b", Set.of("c"));
        g.put("c", Set.of("a"));
        g.put("d", Set.of("a"));
        assertThat(cycles(g)).containsExactly(Set.of("a", "b", "c"));
        g.put("c", Set.of());
        assertThat(cycles(g)).isEmpty();
    }

    private static String moduleOf(Class<?> c) {
        // on the class path the module is unnamed; rvt's modules are named after their root package
        return c.getModule().isNamed() ? c.getModule().getName() : c.getPackageName();
    }

    /**
     * @return rvt's modules on the class path, wherever Maven resolved them: jars from the repository or the
     *         reactor's own target/*.jar and classes directories (a reactor build has no "/io/rvt/" in its paths)
     */
    private static List<String> rvtModulePath() {
        List<String> out = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(e);
            boolean exploded = java.nio.file.Files.isRegularFile(p.resolve("module-info.class"));
            if (exploded || e.endsWith(".jar") && java.nio.file.Files.isRegularFile(p) && isRvtModule(p)) {
                out.add(e);
            }
        }
        return out;
    }

    private static boolean isRvtModule(Path jar) {
        try {
            return java.lang.module.ModuleFinder.of(jar).findAll().stream()
                    .map(java.lang.module.ModuleReference::descriptor)
                    .anyMatch(d -> !d.isAutomatic() && d.name().startsWith("io.rvt"));
        } catch (java.lang.module.FindException notAModule) { // a jar jdeps need not see
            return false;
        }
    }

    /** @return the module's own packages, each with the module's own packages it depends on (itself left out) */
    private static Map<String, Set<String>> packageGraph(Path classes) throws URISyntaxException {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args = new ArrayList<>(List.of("--multi-release", "17", "--ignore-missing-deps"));
        List<String> modules = rvtModulePath();
        if (!modules.isEmpty()) { // jdeps refuses an empty --module-path (exit 2)
            args.addAll(List.of("--module-path", String.join(java.io.File.pathSeparator, modules)));
        }
        args.addAll(List.of("-verbose:package", "-filter:none", classes.toString()));
        int rc = jdeps.run(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
        assertThat(rc).as("jdeps %s: %s%s", args, out, err).isZero();
        Map<String, Set<String>> all = new TreeMap<>();
        List<String[]> edges = new ArrayList<>();
        for (String line : out.toString().split("\\R")) {
            Matcher m = EDGE.matcher(line);
            if (m.find() && m.group(1).startsWith("io.rvt")) {
                all.computeIfAbsent(m.group(1), k -> new TreeSet<>());
                edges.add(new String[] {m.group(1), m.group(2)});
            }
        }
        for (String[] e : edges) {
            if (all.containsKey(e[1]) && !e[0].equals(e[1])) {
                all.get(e[0]).add(e[1]);
            }
        }
        return all;
    }

    /** @return the strongly connected components of more than one package (Tarjan) */
    static List<Set<String>> cycles(Map<String, Set<String>> g) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new java.util.HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : new TreeSet<>(g.keySet())) {
            if (!index.containsKey(v)) {
                connect(v, g, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> g, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : g.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, g, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                out.add(component);
            }
        }
    }

    private static List<String> edges(Map<String, Set<String>> g, Set<String> cycle) {
        List<String> out = new ArrayList<>();
        for (String a : cycle) {
            for (String b : g.getOrDefault(a, Set.of())) {
                if (cycle.contains(b)) {
                    out.add(a + " -> " + b);
                }
            }
        }
        return out;
    }
}
