package io.rvt.launcher;

import io.rvt.api.Device;

/**
 * The {@code --json} file of {@code rvt perf}: perftest's {@code --out_json} content made one valid document. perftest
 * writes one {@code {"test_info": {...}, "results": {...}}} per run (and repeats {@code "results"} for {@code -a},
 * which is not valid JSON); here every table is one element of {@code "tests"} with its {@code "test_info"} and an
 * array of {@code "results"}, and each field keeps perftest's name ({@code MsgSize}, {@code n_iterations},
 * {@code BW_peak}, {@code BW_average}, {@code MsgRate}; {@code t_min}, {@code t_max}, {@code t_typical},
 * {@code t_avg}, {@code t_stdev}, {@code percentile_99}, {@code percentile_99.9}).
 */
final class JsonReport {
    private final JsonWriter w = new JsonWriter();
    /** perftest's {@code Link_type} of the host's devices ({@code IB}, {@code Ethernet}). */
    private final String linkType;
    /** Who ran the network ({@code --threading}): {@code network} or {@code invoker}. */
    private final String threading;

    /**
     * Starts the document.
     *
     * @param host what the results are measured on
     */
    JsonReport(Host host) {
        this.linkType = host.driver().perftestLinkType();
        this.threading = host.threading().option();
        w.beginObject();
        w.name("tool").value("rvt perf");
        w.name("simulated").value(host.driver().simulated());
        w.name("measured_on").value(host.description());
        w.name("units").beginObject().name("BW").value("MiB/sec").name("MsgRate").value("Mpps").name("t")
                .value("usec").endObject();
        w.name("tests").beginArray();
    }

    /**
     * Starts a table.
     *
     * @param spec the table
     * @param a the requester's device
     * @param mtu the path MTU in bytes
     */
    void beginTest(PerfSpec spec, Device a, int mtu) {
        w.beginObject().name("test_info").beginObject();
        w.name("test").value(spec.jsonName());
        w.name("Dual_port").value("OFF");
        w.name("Device").value(a.name());
        w.name("Number_of_qps").value(spec.latency() ? 1 : spec.qps());
        w.name("Transport_type").value("IB");
        w.name("Connection_type").value(spec.transport().name());
        w.name("Using_SRQ").value("OFF");
        if (!spec.latency()) {
            w.name("TX_depth").value(spec.txDepth());
            w.name("CQ_Moderation").value(spec.cqModeration());
        }
        w.name("Mtu").value(mtu);
        w.name("Link_type").value(linkType);
        if (spec.test() == PerfTest.READ || spec.test() == PerfTest.ATOMIC) {
            w.name("Outstand_reads").value(16);
        } else {
            w.name("Max_inline_data").value(0);
        }
        w.name("rdma_cm_QPs").value("OFF");
        w.name("Data_ex_method").value("in_process");
        w.name("Driver").value(a.driverName());
        w.name("Threading").value(threading); // rvt's own: who ran the network (--threading)
        w.endObject();
        w.name("results").beginArray();
    }

    /**
     * @param r a bandwidth row
     */
    void result(BandwidthResult r) {
        w.beginObject().name("MsgSize").value(r.size()).name("n_iterations").value(r.iterations())
                .name("BW_peak").value(r.peakMiBps(), 2).name("BW_average").value(r.averageMiBps(), 2)
                .name("MsgRate").value(r.messageRateMpps(), 6).endObject();
    }

    /**
     * @param r a latency row
     */
    void result(LatencyResult r) {
        w.beginObject().name("MsgSize").value(r.size()).name("n_iterations").value(r.iterations())
                .name("t_min").value(r.min(), 2).name("t_max").value(r.max(), 2)
                .name("t_typical").value(r.typical(), 2).name("t_avg").value(r.average(), 2)
                .name("t_stdev").value(r.stdev(), 2).name("percentile_99").value(r.p99(), 2)
                .name("percentile_99.9").value(r.p999(), 2).endObject();
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
