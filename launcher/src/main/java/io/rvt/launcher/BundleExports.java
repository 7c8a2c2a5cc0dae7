package io.rvt.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packages a bundle on the class path exports, as its own manifest says ({@code Export-Package}), for a system
 * bundle that re-exports them: the versions then follow the bundle (bnd's {@code @Version}) instead of a copy here.
 */
final class BundleExports {
    /** {@code version="1.2.0"} or {@code version=1.2.0} in one clause. */
    private static final Pattern VERSION = Pattern.compile(";\\s*version\\s*=\\s*\"?([0-9][^\";,]*)\"?");

    private BundleExports() {
    }

    /**
     * @param type a class of the bundle
     * @return its exports as {@code org.osgi.framework.system.packages.extra} wants them, e.g.
     *     {@code io.rvt.api;version=1.2.0,io.rvt.api.spi;version=2.0.0}
     * @throws IllegalStateException if the jar or directory it came from has no manifest or no {@code Export-Package}
     */
    static String of(Class<?> type) {
        String header = exportPackage(type);
        List<String> out = new ArrayList<>();
        for (String clause : clauses(header)) {
            int semi = clause.indexOf(';');
            String pkg = (semi < 0 ? clause : clause.substring(0, semi)).trim();
            Matcher m = VERSION.matcher(clause);
            out.add(m.find() ? pkg + ";version=" + m.group(1) : pkg);
        }
        return String.join(",", out);
    }

    /** Splits a header at the commas outside quotes ({@code uses:="a,b"} holds commas). */
    static List<String> clauses(String header) {
        List<String> out = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                out.add(header.substring(start, i));
                start = i + 1;
            }
        }
        out.add(header.substring(start));
        return out;
    }

    private static String exportPackage(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null) {
            throw new IllegalStateException("cannot tell where " + type.getName() + " was loaded from");
        }
        try {
            Path where = Path.of(source.getLocation().toURI());
            Manifest manifest;
            if (Files.isDirectory(where)) {
                try (InputStream in = Files.newInputStream(where.resolve("META-INF/MANIFEST.MF"))) {
                    manifest = new Manifest(in);
                }
            } else {
                try (JarFile jar = new JarFile(where.toFile())) {
                    manifest = jar.getManifest();
                }
            }
            String header = manifest == null ? null : manifest.getMainAttributes().getValue("Export-Package");
            if (header == null || header.isBlank()) {
                throw new IllegalStateException(where + " (" + type.getName() + ") exports no package");
            }
            return header;
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot read the manifest of " + type.getName() + "'s bundle: " + e, e);
        }
    }
}
