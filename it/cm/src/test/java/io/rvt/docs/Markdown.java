package io.rvt.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Markdown file as the docs test reads it: its fenced code blocks (each with the HTML comment that marks it, if
 * the line before the fence is one), its relative links and the anchors GitHub gives its headings.
 */
final class Markdown {
    /** A fenced block: where it starts, its info string ({@code java}), its marker comment or null, its text. */
    record Block(Path file, int line, String info, String marker, String text) {
        @Override
        public String toString() {
            return Docs.relative(file) + ":" + line + (marker == null ? "" : " <!-- " + marker + " -->");
        }
    }

    /** A link or image target outside code, where it was written. */
    record Link(Path file, int line, String target) {
        @Override
        public String toString() {
            return Docs.relative(file) + ":" + line + " (" + target + ")";
        }
    }

    private static final Pattern FENCE = Pattern.compile("^( *)(```+|~~~+)\\s*([^`\\s]*).*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*(.*?)\\s*-->\\s*$");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern INLINE_LINK_TEXT = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");

    private final Path file;
    private final List<Block> blocks = new ArrayList<>();
    private final List<Link> links = new ArrayList<>();
    private final Set<String> anchors = new LinkedHashSet<>();

    private Markdown(Path file, List<String> lines) {
        this.file = file;
        Map<String, Integer> seen = new HashMap<>();
        int i = 0;
        while (i < lines.size()) {
            String line = lines.get(i);
            Matcher f = FENCE.matcher(line);
            if (f.matches()) {
                int indent = f.group(1).length();
                String fence = f.group(2);
                StringBuilder text = new StringBuilder();
                int j = i + 1;
                while (j < lines.size() && !lines.get(j).strip().startsWith(fence)) {
                    String l = lines.get(j);
                    int cut = Math.min(indent, l.length() - l.stripLeading().length());
                    text.append(l.substring(cut)).append('\n');
                    j++;
                }
                blocks.add(new Block(file, i + 1, f.group(3), markerBefore(lines, i), text.toString()));
                i = j + 1;
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher l = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (l.find()) {
                links.add(new Link(file, i + 1, l.group(1)));
            }
            i++;
        }
    }

    /** @return the file parsed */
    static Markdown read(Path file) {
        try {
            return new Markdown(file, Files.readAllLines(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return text parsed as if it were {@code file} */
    static Markdown parse(Path file, String text) {
        return new Markdown(file, text.lines().toList());
    }

    private static String markerBefore(List<String> lines, int fence) {
        int k = fence - 1;
        while (k >= 0 && lines.get(k).isBlank()) {
            k--;
        }
        if (k < 0) {
            return null;
        }
        Matcher m = MARKER.matcher(lines.get(k));
        return m.matches() ? m.group(1) : null;
    }

    /**
     * The anchor GitHub gives a heading: its text as rendered (code spans and links reduced to their text), lower
     * case, every character that is not a letter, a digit, a space, {@code -} or {@code _} dropped, spaces as
     * {@code -}. A repeated heading gets {@code -1}, {@code -2}, ... (done by the caller).
     *
     * @param heading the heading's Markdown text
     * @return its slug
     */
    static String slug(String heading) {
        String text = INLINE_LINK_TEXT.matcher(heading).replaceAll("$1");
        text = text.toLowerCase(Locale.ROOT);
        StringBuilder s = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                s.appendCodePoint(c);
            } else if (c == ' ') {
                s.append('-');
            }
        });
        return s.toString();
    }

    Path file() {
        return file;
    }

    List<Block> blocks() {
        return blocks;
    }

    List<Link> links() {
        return links;
    }

    Set<String> anchors() {
        return anchors;
    }

    /** @return the block that follows {@code b} in this file, or null */
    Block next(Block b) {
        int at = blocks.indexOf(b);
        return at >= 0 && at + 1 < blocks.size() ? blocks.get(at + 1) : null;
    }
}
