package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.w3c.dom.Document;

/**
 * {@code rvt perf -a --plot}: a UD sweep (ten sizes up to {@code -m 1024}) drawn into an SVG and a PNG. The file must
 * be a well-formed SVG document, or a PNG of the chart's size, and carry both series in their colours; the chart's
 * series are the rows the table printed.
 */
class PerfPlotTest {
    private static final String SWEEP_LAST_SIZE = "1024";
    private final CommandLine cli = new CommandLine();

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void shouldDrawABandwidthSweepIntoAValidSvgWithBothSeries() throws Exception {
        Path svg = dir.resolve("sweep.svg");
        assertThat(cli.run("perf", "--no-osgi", "--test", "send", "-c", "UD", "-a", "-n", "20", "-m", "1024",
                "--plot", svg.toString())).as(cli.err()).isZero();
        Document doc = parse(svg);
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(doc.getDocumentElement().getAttribute("viewBox")).isEqualTo("0 0 800 500");
        XYChart chart = chartOf(cli.out(), false);
        assertThat(chart.getSeriesMap().keySet()).containsExactly("BW average", "BW peak");
        String text = Files.readString(svg);
        List<Color> colours = seriesColours(chart);
        for (int i = 0; i < colours.size(); i++) {
            Color c = colours.get(i);
            // each series' line and its markers, one per size
            assertThat(text.split("stroke:rgb\\(" + c.getRed() + "," + c.getGreen() + "," + c.getBlue() + "\\)", -1))
                    .as("series %d's lines", i).hasSizeGreaterThan(10);
        }
    }

    @Test
    @Timeout(120)
    void shouldDrawALatencySweepIntoAPngOfTheChartsSizeWithBothSeries() throws Exception {
        Path png = dir.resolve("sweep.png");
        assertThat(cli.run("perf", "--no-osgi", "--test", "send", "--lat", "-c", "UD", "-a", "-n", "20", "-m", "1024",
                "--plot", png.toString())).as(cli.err()).isZero();
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image).as("a PNG ImageIO reads").isNotNull();
        assertThat(List.of(image.getWidth(), image.getHeight())).containsExactly(PerfPlot.WIDTH, PerfPlot.HEIGHT);
        XYChart chart = chartOf(cli.out(), true);
        assertThat(chart.getSeriesMap().keySet()).containsExactly("t_typical", "t_avg");
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                colours.add(image.getRGB(x, y) & 0xFFFFFF);
            }
        }
        for (Color c : seriesColours(chart)) {
            // the theme's colours are translucent: on the white plot area they come out lighter
            int onWhite = blend(c.getRed(), c.getAlpha()) << 16 | blend(c.getGreen(), c.getAlpha()) << 8
                    | blend(c.getBlue(), c.getAlpha());
            assertThat(colours.stream().anyMatch(p -> near(p, onWhite))).as(c + " of a series, on white "
                    + Integer.toHexString(onWhite)).isTrue();
        }
    }

    @Test
    void shouldRefuseAPlotWithoutASweepOrOfAnotherFormat() {
        cli.assertUsage("option --plot draws a sweep against the message size: add -a", "perf", "--no-osgi",
                "--plot", dir.resolve("x.svg").toString());
        cli.assertUsage("option --plot: 'x.pdf' is neither .svg nor .png", "perf", "--no-osgi", "-a", "--plot",
                dir.resolve("x.pdf").toString());
    }

    private static int blend(int channel, int alpha) {
        return (channel * alpha + 255 * (255 - alpha)) / 255;
    }

    private static boolean near(int rgb, int other) {
        for (int shift = 0; shift < 24; shift += 8) {
            if (Math.abs((rgb >> shift & 0xFF) - (other >> shift & 0xFF)) > 3) {
                return false;
            }
        }
        return true;
    }

    /** @return the colours the chart's theme gives its series, in order (XChart assigns them when it paints) */
    private static List<Color> seriesColours(XYChart chart) {
        Color[] theme = chart.getStyler().getSeriesColors();
        List<Color> c = new java.util.ArrayList<>();
        for (int i = 0; i < chart.getSeriesMap().size(); i++) {
            c.add(theme[i % theme.length]);
        }
        assertThat(c).doesNotHaveDuplicates();
        return c;
    }

    /** The chart PerfPlot draws of the rows the command printed (the same code, the same colours). */
    private static XYChart chartOf(String out, boolean latency) {
        List<long[]> rows = TwoProcessIT.rows(out);
        assertThat(rows).hasSize(10);
        assertThat(rows.get(9)[0]).isEqualTo(Long.parseLong(SWEEP_LAST_SIZE));
        PerfPlot plot = new PerfPlot(Path.of("unused.svg"));
        for (long[] r : rows) {
            if (latency) {
                plot.add(new LatencyResult((int) r[0], r[1], 1, 1, 1, 1, 0, 1, 1));
            } else {
                plot.add(new BandwidthResult((int) r[0], r[1], 1, 1, 1), false);
            }
        }
        return plot.chart(new PerfSpec(PerfTest.SEND, Transport.UD, latency, new int[] {2}, 1, 20, 0, 128), false,
                "test");
    }

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        // the SVG 1.1 DOCTYPE names a DTD on the web: well-formedness is what is checked, offline
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newDocumentBuilder().parse(file.toFile());
    }
}
