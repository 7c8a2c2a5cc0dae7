package io.rvt.launcher;

import io.rvt.api.Device;

/**
 * perftest's {@code --out_json} report, in its own layout: one object with a {@code "test_info"} object and a
 * {@code "results"} object, every key as perftest writes it ({@code write_test_info_to_file},
 * {@code write_bw_report_to_file}, {@code write_report_lat_to_file} in perftest_parameters.c). perftest rewrites the
 * file for every row it reports, so that after {@code -a} it holds the last size; rvt does the same. The
 * {@code test_info} and {@code results} fields are also what each table of {@link JsonReport} carries.
 */
final class PerftestJson {
    private final JsonWriter w = new JsonWriter();

    /**
     * One row's report.
     *
     * @param info the table's test_info
     * @param bw the row, for a bandwidth table (else null)
     * @param lat the row, for a latency table (else null)
     * @param gbits bandwidth in Gb/s ({@code --report_gbits})
     * @param output {@code --output} ({@code bandwidth}, {@code message_rate}, {@code latency}): the results hold
     *        that one figure, as perftest's; null for the whole row
     * @return the document
     */
    static String report(TestInfo info, BandwidthResult bw, LatencyResult lat, boolean gbits, String output) {
        PerftestJson j = new PerftestJson();
        j.w.beginObject();
        info.write(j.w.name("test_info").beginObject());
        j.w.endObject().name("results").beginObject();
        if (output != null) {
            figure(j.w, info.spec(), bw, lat, gbits, output);
        } else if (bw != null) {
            result(j.w, bw, gbits);
        } else {
            result(j.w, lat);
        }
        return j.w.endObject().endObject().toJson();
    }

    /**
     * The one figure {@code --output} names, under perftest's key: {@code bw_avg} or {@code msgRate_avg}
     * ({@code write_bw_report_to_file}), {@code avg_lat} ({@code write_report_lat_to_file}) or, for a latency table
     * run for a duration, {@code t_avg} ({@code write_report_lat_duration_to_file}), each {@code "%lf"} (six
     * decimals). perftest leaves a comma after {@code bw_avg} and {@code msgRate_avg} (its JSON does not parse);
     * rvt's does not.
     */
    private static void figure(JsonWriter w, PerfSpec spec, BandwidthResult bw, LatencyResult lat, boolean gbits,
            String output) {
        if (lat != null) {
            w.name(spec.iters() == 0 ? "t_avg" : "avg_lat").value(lat.average(), 6);
        } else if (output.equals("message_rate")) {
            w.name("msgRate_avg").value(bw.messageRateMpps(), 6);
        } else {
            w.name("bw_avg").value(bw.average(gbits), 6);
        }
    }

    /**
     * What perftest's {@code test_info} says of a table.
     *
     * @param spec the table
     * @param device the requester's device (perftest's {@code -d})
     * @param mtu the path MTU in bytes
     * @param linkType perftest's {@code Link_type}: {@code IB} or {@code Ethernet}
     * @param link the port, path MTU and GID index
     * @param rxDepth receives kept posted per QP (SEND tests)
     * @param dataExchange perftest's {@code Data_ex_method}: how the two sides learnt each other's QPs
     * @param multicast perftest's {@code -g}: {@code "test": "Send_BW_Multicast_Test"} and
     *                  {@code "MultiCast_runs": "on_UD"}
     * @param dualPort perftest's {@code -O}: {@code "Dual_port": "ON"}
     */
    record TestInfo(PerfSpec spec, Device device, int mtu, String linkType, LinkOptions link, int rxDepth,
            String dataExchange, boolean multicast, boolean dualPort) {
        /**
         * A table neither multicast nor dual-port.
         *
         * @param spec the table
         * @param device the requester's device (perftest's {@code -d})
         * @param mtu the path MTU in bytes
         * @param linkType perftest's {@code Link_type}: {@code IB} or {@code Ethernet}
         * @param link the port, path MTU and GID index
         * @param rxDepth receives kept posted per QP (SEND tests)
         * @param dataExchange perftest's {@code Data_ex_method}
         */
        TestInfo(PerfSpec spec, Device device, int mtu, String linkType, LinkOptions link, int rxDepth,
                String dataExchange) {
            this(spec, device, mtu, linkType, link, rxDepth, dataExchange, false, false);
        }

        /**
         * Writes the fields into the open {@code test_info} object, in perftest's order.
         *
         * @param w a writer inside that object
         */
        void write(JsonWriter w) {
            String test = spec.jsonName();
            w.name("test").value(multicast ? test.replace("_Test", "_Multicast_Test") : test);
            if (multicast) {
                w.name("MultiCast_runs").value("on_UD");
            }
            w.name("Dual_port").value(dualPort ? "ON" : "OFF");
            w.name("Device").value(device.name());
            w.name("Number_of_qps").value(spec.latency() ? 1 : spec.qps());
            w.name("Transport_type").value("IB");
            w.name("Connection_type").value(spec.transport().name());
            w.name("Using_SRQ").value("OFF");
            w.name("PCIe_relax_order").value("Unsupported");
            w.name("ibv_wr_API").value("OFF"); // rvt posts with ibv_post_send's semantics
            if (!spec.latency()) {
                w.name("TX_depth").value(spec.txDepth());
                if (spec.postList() > 1) {
                    w.name("Post_List").value(spec.postList());
                }
            }
            if (spec.test().needsReceives()) {
                w.name("RX_depth").value(rxDepth);
            }
            if (!spec.latency()) {
                w.name("CQ_Moderation").value(spec.cqModeration());
            }
            w.name("Mtu").value(mtu);
            w.name("Link_type").value(linkType);
            if (link.gidIndex() >= 0) {
                w.name("GID_index").value(link.gidIndex());
            }
            if (spec.test() == PerfTest.READ || spec.test() == PerfTest.ATOMIC) {
                w.name("Outstand_reads").value(Endpoint.RD_ATOMIC);
            } else {
                w.name("Max_inline_data").value(0);
            }
            w.name("rdma_cm_QPs").value("rdma_cm".equals(dataExchange) ? "ON" : "OFF");
            w.name("Use_ROCm_memory").value("OFF");
            w.name("Use_MUSA_memory").value("OFF");
            w.name("Data_ex_method").value(dataExchange);
        }
    }

    /**
     * Writes a bandwidth row's fields into an open object ({@code REPORT_FMT_JSON}; six decimals in Gb/s below 0.1,
     * {@code REPORT_FMT_EXT_JSON}).
     *
     * @param w a writer inside the object
     * @param r the row
     * @param gbits Gb/s rather than MiB/s
     */
    static void result(JsonWriter w, BandwidthResult r, boolean gbits) {
        int decimals = gbits && r.averageGbps() < 0.1 ? 6 : 2;
        w.name("MsgSize").value(r.size()).name("n_iterations").value(r.iterations())
                .name("BW_peak").value(r.peak(gbits), decimals).name("BW_average").value(r.average(gbits), decimals)
                .name("MsgRate").value(r.messageRateMpps(), 6);
    }

    /**
     * Writes a latency row's fields into an open object ({@code REPORT_FMT_LAT_JSON}).
     *
     * @param w a writer inside the object
     * @param r the row
     */
    static void result(JsonWriter w, LatencyResult r) {
        w.name("MsgSize").value(r.size()).name("n_iterations").value(r.iterations())
                .name("t_min").value(r.min(), 2).name("t_max").value(r.max(), 2)
                .name("t_typical").value(r.typical(), 2).name("t_avg").value(r.average(), 2)
                .name("t_stdev").value(r.stdev(), 2).name("percentile_99").value(r.p99(), 2)
                .name("percentile_99.9").value(r.p999(), 2);
    }
}
