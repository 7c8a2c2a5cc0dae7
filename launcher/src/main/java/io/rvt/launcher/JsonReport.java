package io.rvt.launcher;

/**
 * The {@code --json} file of {@code rvt perf}: perftest's {@code --out_json} content made one valid document. perftest
 * writes one {@code {"test_info": {...}, "results": {...}}} per row, rewriting the file each time
 * ({@link PerftestJson}, {@code --out_json}); here every table is one element of {@code "tests"} with its {@code "test_info"} and an
 * array of {@code "results"}, and each field keeps perftest's name ({@code MsgSize}, {@code n_iterations},
 * {@code BW_peak}, {@code BW_average}, {@code MsgRate}; {@code t_min}, {@code t_max}, {@code t_typical},
 * {@code t_avg}, {@code t_stdev}, {@code percentile_99}, {@code percentile_99.9}).
 */
final class JsonReport {
    private final JsonWriter w = new JsonWriter();
    /** Who ran the network, as {@code --threading} spells it: progress, dedicated, shared or invoker. */
    private final String threading;
    /** Bandwidth in Gb/s ({@code --report_gbits}) rather than MiB/s. */
    private final boolean gbits;

    /**
     * Starts the document.
     *
     * @param host what the results are measured on
     * @param gbits bandwidth in Gb/s ({@code --report_gbits}) rather than MiB/s
     */
    JsonReport(Host host, boolean gbits) {
        this.threading = host.threading().option();
        this.gbits = gbits;
        w.beginObject();
        w.name("tool").value("rvt perf");
        w.name("simulated").value(host.driver().simulated());
        w.name("measured_on").value(host.description());
        w.name("units").beginObject().name("BW").value(gbits ? "Gb/sec" : "MiB/sec").name("MsgRate").value("Mpps")
                .name("t").value("usec").endObject();
        w.name("tests").beginArray();
    }

    /**
     * Starts a table.
     *
     * @param info the table's perftest test_info
     */
    void beginTest(PerftestJson.TestInfo info) {
        w.beginObject().name("test_info").beginObject();
        info.write(w);
        w.name("Driver").value(info.device().driverName());
        w.name("Threading").value(threading); // rvt's own: who ran the network (--threading)
        w.endObject();
        w.name("results").beginArray();
    }

    /**
     * @param r a bandwidth row
     */
    void result(BandwidthResult r) {
        w.beginObject();
        PerftestJson.result(w, r, gbits);
        w.endObject();
    }

    /**
     * @param r a latency row
     */
    void result(LatencyResult r) {
        w.beginObject();
        PerftestJson.result(w, r);
        w.endObject();
    }

    /** Ends a table. */
    void endTest() {
        w.endArray().endObject();
    }

    /** @return the finished document */
    String finish() {
        w.endArray().endObject();
        return w.toJson();
    }
}
