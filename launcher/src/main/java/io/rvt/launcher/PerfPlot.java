package io.rvt.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code rvt perf -a --plot FILE.svg|FILE.png}: the sweep's rows drawn against the message size (log scale), with
 * XChart: bandwidth tables their average and peak, latency tables their typical and average time, one series each.
 */
final class PerfPlot {
    /** The picture's width in pixels (SVG: its viewport's). */
    static final int WIDTH = 800;
    /** The picture's height in pixels. */
    static final int HEIGHT = 500;

    private final Path file;
    private final boolean svg;
    private final List<Double> sizes = new ArrayList<>();
    private final List<Double> first = new ArrayList<>();
    private final List<Double> second = new ArrayList<>();

    /**
     * @param file where the picture goes
     * @throws UsageException unless it ends in {@code .svg} or {@code .png}
     */
    PerfPlot(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!name.endsWith(".svg") && !name.endsWith(".png")) {
            throw new UsageException("option --plot: '" + file.getFileName() + "' is neither .svg nor .png");
        }
        this.file = file;
        this.svg = name.endsWith(".svg");
    }

    /**
     * @param r a bandwidth row
     * @param gbits in Gb/s ({@code --report_gbits}) rather than MiB/s
     */
    void add(BandwidthResult r, boolean gbits) {
        sizes.add((double) r.size());
        first.add(r.average(gbits));
        second.add(r.peak(gbits));
    }

    /** @param r a latency row */
    void add(LatencyResult r) {
        sizes.add((double) r.size());
        first.add(r.typical());
        second.add(r.average());
    }

    /**
     * Draws the rows added so far and writes the file.
     *
     * @param spec the table
     * @param gbits bandwidth in Gb/s
     * @param where what it was measured on, for the title
     */
    void write(PerfSpec spec, boolean gbits, String where) {
        XYChart chart = chart(spec, gbits, where);
        try (OutputStream out = Files.newOutputStream(file)) {
            if (svg) {
                VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            } else {
                BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param spec the table
     * @param gbits bandwidth in Gb/s
     * @param where what it was measured on, for the title
     * @return the chart of the rows added so far: two series against the size, on a logarithmic axis
     */
    XYChart chart(PerfSpec spec, boolean gbits, String where) {
        String unit = spec.latency() ? "usec" : gbits ? "Gb/sec" : "MiB/sec";
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(spec.title() + " (" + where + ")")
                .xAxisTitle("message size [B]").yAxisTitle((spec.latency() ? "latency" : "bandwidth") + " [" + unit
                        + "]").build();
        chart.getStyler().setXAxisLogarithmic(true).setMarkerSize(6);
        String[] names = spec.latency() ? new String[] {"t_typical", "t_avg"} : new String[] {"BW average", "BW peak"};
        chart.addSeries(names[0], sizes, first).setMarker(SeriesMarkers.CIRCLE);
        chart.addSeries(names[1], sizes, second).setMarker(SeriesMarkers.DIAMOND);
        return chart;
    }
}
