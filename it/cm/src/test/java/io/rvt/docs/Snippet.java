package io.rvt.docs;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * A Java code block of the documentation that says it compiles, as its marker describes it (the convention is in
 * docs/testing.md, "The documentation is tested"):
 * <pre>
 * &lt;!-- compile --&gt;                               a compilation unit (imports, one or more types)
 * &lt;!-- compile: members --&gt;                      class members (fields, methods), wrapped in a class
 * &lt;!-- compile: body; given Device dev --&gt;       statements, wrapped in a method with those parameters
 * &lt;!-- compile: run; prints --&gt;                 ... and run (it has main), printing the block that follows
 * &lt;!-- compile: same as path/File.java --&gt;      ... and is that file's text (or its "// doc: begin" region)
 * &lt;!-- compile: body; imports org.osgi.service.cm.* --&gt;   more imports for a wrapped block
 * &lt;!-- not compiled: why --&gt;                     a Java block that does not claim to compile, and why
 * </pre>
 * Wrapped blocks import {@link #IMPORTS}. {@code first-program} (the README's) means {@code compile: run; prints}.
 */
final class Snippet {
    /** What a wrapped block (members, body) imports. */
    static final List<String> IMPORTS = List.of("io.rvt.api.*", "io.rvt.api.spi.agent.*", "io.rvt.cm.*",
            "io.rvt.driver.sim.*", "io.rvt.driver.sim.fabric.*", "io.rvt.driver.jni.*", "java.net.*", "java.nio.*",
            "java.nio.charset.*", "java.time.*", "java.util.*", "java.util.concurrent.*");

    enum Shape { UNIT, MEMBERS, BODY }

    private static final Pattern TYPE = Pattern.compile(
            "(?m)^(?:public\\s+)?(?:(?:final|abstract|sealed)\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

    private final Markdown.Block block;
    private Shape shape = Shape.UNIT;
    private String given = "";
    private final List<String> imports = new ArrayList<>(IMPORTS);
    private boolean run;
    private boolean prints;
    private String sameAs;

    private Snippet(Markdown.Block block) {
        this.block = block;
    }

    /** @return whether the block's marker says it compiles (compile or first-program) */
    static boolean claimsToCompile(Markdown.Block b) {
        return b.marker() != null && (b.marker().equals("compile") || b.marker().startsWith("compile:")
                || b.marker().startsWith("first-program"));
    }

    /** @return whether the block's marker says it is not compiled, and why */
    static boolean saysWhyNot(Markdown.Block b) {
        return b.marker() != null && b.marker().matches("not compiled: \\S.*");
    }

    /**
     * @param b a block that claims to compile
     * @return the snippet its marker describes
     * @throws IllegalArgumentException for an option the convention does not have
     */
    static Snippet of(Markdown.Block b) {
        Snippet s = new Snippet(b);
        String m = b.marker();
        if (m.startsWith("first-program")) {
            s.run = true;
            s.prints = true;
            return s;
        }
        if (!m.startsWith("compile:")) {
            return s;
        }
        for (String raw : m.substring("compile:".length()).split(";")) {
            String o = raw.strip();
            if (o.equals("unit")) {
                s.shape = Shape.UNIT;
            } else if (o.equals("members")) {
                s.shape = Shape.MEMBERS;
            } else if (o.equals("body")) {
                s.shape = Shape.BODY;
            } else if (o.startsWith("given ")) {
                s.given = o.substring("given ".length()).strip();
            } else if (o.startsWith("imports ")) {
                for (String i : o.substring("imports ".length()).split(",")) {
                    s.imports.add(i.strip());
                }
            } else if (o.equals("run")) {
                s.run = true;
            } else if (o.equals("prints")) {
                s.prints = true;
            } else if (o.startsWith("same as ")) {
                s.sameAs = o.substring("same as ".length()).strip();
            } else {
                throw new IllegalArgumentException(b + ": unknown compile option '" + o + "' (unit, members, body,"
                        + " given ..., imports ..., run, prints, same as PATH)");
            }
        }
        if (s.prints && !s.run) {
            throw new IllegalArgumentException(b + ": 'prints' needs 'run'");
        }
        if (s.shape != Shape.BODY && !s.given.isEmpty()) {
            throw new IllegalArgumentException(b + ": 'given' is for a body");
        }
        return s;
    }

    Markdown.Block block() {
        return block;
    }

    boolean runs() {
        return run;
    }

    boolean prints() {
        return prints;
    }

    /** @return the repository path the block must equal, or null */
    String sameAs() {
        return sameAs;
    }

    /** @return the name of the class the source declares (for a unit, its first type) */
    String className() {
        if (shape != Shape.UNIT) {
            return "DocSnippet" + block.line();
        }
        Matcher t = TYPE.matcher(block.text());
        if (!t.find()) {
            throw new IllegalArgumentException(block + ": no class, interface, record or enum in the block");
        }
        Matcher p = PACKAGE.matcher(block.text());
        return (p.find() ? p.group(1) + "." : "") + t.group(1);
    }

    /** @return the Java source that is compiled: the block itself, or the block wrapped as its shape says */
    String source() {
        if (shape == Shape.UNIT) {
            return block.text();
        }
        StringBuilder s = new StringBuilder();
        for (String i : imports) {
            s.append("import ").append(i).append(";\n");
        }
        s.append("\n@SuppressWarnings(\"unused\")\nclass ").append(className()).append(" {\n");
        if (shape == Shape.BODY) {
            s.append("static void snippet(").append(given).append(") throws Exception {\n")
                    .append(block.text()).append("}\n");
        } else {
            s.append(block.text());
        }
        return s.append("}\n").toString();
    }

    /**
     * Compiles the source with javax.tools against this JVM's class path.
     *
     * @param out where the classes go
     * @return the errors, each with its line in the source compiled; empty when it compiled
     */
    List<String> compile(Path out) throws IOException {
        String name = className();
        Path src = out.resolve("src").resolve(name.replace('.', File.separatorChar) + ".java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source(), StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> errors = new ArrayList<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT,
                StandardCharsets.UTF_8)) {
            StringWriter log = new StringWriter();
            boolean ok = javac.getTask(log, files, diagnostics,
                    List.of("-d", out.toString(), "-cp", System.getProperty("java.class.path"), "-proc:none",
                            "-implicit:none", "-encoding", "UTF-8"),
                    null, files.getJavaFileObjects(src.toFile())).call();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add("line " + docLine(d.getLineNumber()) + " of " + Docs.relative(block.file()) + ": "
                            + d.getMessage(Locale.ROOT));
                }
            }
            if (!ok && errors.isEmpty()) {
                errors.add("javac failed: " + log);
            }
        }
        return errors;
    }

    /** @return the line of the Markdown file that is line {@code sourceLine} of {@link #source()} */
    private long docLine(long sourceLine) {
        String s = source();
        long before = s.substring(0, s.indexOf(block.text())).lines().count();
        return block.line() + sourceLine - before;
    }

    /**
     * Runs the compiled class's main in a JVM of its own (at most 120 s).
     *
     * @param out where {@link #compile} put the classes
     * @return what it printed (stdout and stderr); fails with that text if it fails or hangs
     */
    String run(Path out) throws IOException, InterruptedException {
        Path log = out.resolve("run.txt");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                out + File.pathSeparator + System.getProperty("java.class.path"), className())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String printed = Files.readString(log, StandardCharsets.UTF_8);
        if (!ended || p.exitValue() != 0) {
            throw new AssertionError(block + ": " + (ended ? "exited with " + p.exitValue() : "still running after"
                    + " 120 s") + "; it printed:\n" + printed);
        }
        return printed;
    }

    /** @return the lines of {@code s}, each stripped, without leading and trailing blank lines */
    static List<String> lines(String s) {
        return s.strip().lines().map(String::strip).toList();
    }
}
