package io.rvt.launcher;

import io.rvt.api.Device;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Prints perftest's report: the test-info block between dashed lines, the column header, and one row per size.
 * Columns and their units are perftest's ({@code BW peak[MiB/sec]}: perftest computes with 2^20 bytes and prints
 * MiB/sec since 2023; {@code MsgRate[Mpps]}; latencies in usec).
 */
final class PerfTable {
    /** perftest's {@code RESULT_LINE}. */
    static final String LINE = "---------------------------------------------------------------------------------------";
    /** The bandwidth columns, perftest's {@code RESULT_FMT}. */
    static final List<String> BW_COLUMNS = List.of("#bytes", "#iterations", "BW peak[MiB/sec]",
            "BW average[MiB/sec]", "MsgRate[Mpps]");
    /** The bandwidth columns with {@code --report_gbits}, perftest's {@code RESULT_FMT_G}. */
    static final List<String> GBITS_COLUMNS = List.of("#bytes", "#iterations", "BW peak[Gb/sec]",
            "BW average[Gb/sec]", "MsgRate[Mpps]");
    /** The latency columns, perftest's {@code RESULT_FMT_LAT}. */
    static final List<String> LAT_COLUMNS = List.of("#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
            "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
    private static final int GAP = 3;

    private final PrintStream out;
    private final List<String> columns;
    private final boolean gbits;
    private final String output;
    private boolean cycles;
    /** perftest's {@code --use-srq}: the test-info block says {@code Using SRQ : ON}. */
    private boolean srq;
    /** perftest's {@code -O}: a dual-port table. */
    private boolean dualPort;
    /** perftest's {@code -g}: a multicast table. */
    private boolean multicast;

    /**
     * @param out where the table goes
     * @param latency a latency table, else bandwidth
     */
    PerfTable(PrintStream out, boolean latency) {
        this(out, latency, false);
    }

    /**
     * @param out where the table goes
     * @param latency a latency table, else bandwidth
     * @param gbits bandwidth in Gb/s ({@code --report_gbits}) rather than MiB/s
     */
    PerfTable(PrintStream out, boolean latency, boolean gbits) {
        this(out, latency, gbits, null);
    }

    /**
     * @param out where the table goes
     * @param latency a latency table, else bandwidth
     * @param gbits bandwidth in Gb/s ({@code --report_gbits}) rather than MiB/s
     * @param output perftest's {@code --output} ({@code bandwidth}, {@code message_rate}, {@code latency}): no header
     *        or footer, each row that one figure with six decimals as perftest's {@code "%lf"}; null for the table
     */
    PerfTable(PrintStream out, boolean latency, boolean gbits, String output) {
        this.out = out;
        this.output = output;
        this.gbits = gbits && !latency;
        this.columns = latency ? LAT_COLUMNS : this.gbits ? GBITS_COLUMNS : BW_COLUMNS;
    }

    /**
     * perftest's {@code -C}: the test-info block says what a latency row's tick is.
     *
     * @param ticks whether the rows are in clock ticks
     * @return this
     */
    PerfTable cycles(boolean ticks) {
        this.cycles = ticks;
        return this;
    }

    /**
     * @param shared perftest's {@code --use-srq}: the receiving QPs share a receive queue
     * @return this
     */
    PerfTable srq(boolean shared) {
        this.srq = shared;
        return this;
    }

    /**
     * @param mcg perftest's {@code -g}: the title says {@code Multicast} ({@code Send BW Multicast Test}) and the
     *            block {@code MultiCast runs on UD!}, as perftest's {@code ctx_print_test_info}
     * @return this
     */
    PerfTable multicast(boolean mcg) {
        this.multicast = mcg;
        return this;
    }

    /**
     * @param both perftest's {@code -O}: the block says {@code Dual-port       : ON}, as perftest's
     * @return this
     */
    PerfTable dualPort(boolean both) {
        this.dualPort = both;
        return this;
    }

    /**
     * Prints the test-info block and the column header.
     *
     * @param spec the table
     * @param a the requester's device
     * @param b the responder's device
     * @param host the host, named as what the results were measured on
     * @param link the port, path MTU and GID index
     */
    void header(PerfSpec spec, Device a, Device b, Host host, LinkOptions link) {
        header(spec, a.name(), b.name(), Math.min(link.pathMtu(a).bytes(), link.pathMtu(b).bytes()), host, link);
    }

    /**
     * Prints the test-info block and the column header of a table between two named ends.
     *
     * @param spec the table
     * @param from the requester: a device, or a client process's address
     * @param to the responder
     * @param mtu the path MTU in bytes
     * @param host the host, named as what the results were measured on
     * @param link the port and GID index
     */
    void header(PerfSpec spec, String from, String to, int mtu, Host host, LinkOptions link) {
        header(spec, from, to, mtu, host, link, PerfCommand.DATA_EXCHANGE, null);
    }

    /**
     * Prints the test-info block, perftest's QP lines ({@code ctx_print_pingpong_data}) if given, and the column
     * header of a table between two named ends.
     *
     * @param spec the table
     * @param from the requester: a device, or a client process's address
     * @param to the responder
     * @param mtu the path MTU in bytes
     * @param host the host, named as what the results were measured on
     * @param link the port and GID index
     * @param dataExchange perftest's {@code Data ex. method}: {@code rdma_cm} (the QPs connected through the CM) or
     *        {@code Ethernet} (their data exchanged over TCP)
     * @param addresses the local and remote address lines, or null
     */
    void header(PerfSpec spec, String from, String to, int mtu, Host host, LinkOptions link, String dataExchange,
            String addresses) {
        if (!full()) {
            return;
        }
        out.println(LINE);
        String title = spec.title();
        out.println("                    " + (multicast ? title.replace(" Test", " Multicast Test") : title));
        if (multicast) {
            out.println(" MultiCast runs on UD!");
        }
        if (dualPort) {
            out.println(" Dual-port       : ON");
        }
        out.printf(" Device          : %s -> %s%n", from, to);
        out.printf(" Number of qps   : %d\t\tTransport type : IB%n", spec.latency() ? 1 : spec.qps());
        out.printf(" Connection type : %s\t\tUsing SRQ      : %s%n", spec.transport().name(), srq ? "ON" : "OFF");
        if (!spec.latency()) {
            out.printf(" TX depth        : %d%n", spec.txDepth());
            if (spec.postList() > 1) {
                out.printf(" Post List       : %d%n", spec.postList());
            }
            out.printf(" CQ Moderation   : %d%n", spec.cqModeration());
        }
        out.printf(" Mtu             : %d[B]%n", mtu);
        out.println(" Link type       : " + host.driver().perftestLinkType()
                + (host.driver().simulated() ? " (simulated)" : ""));
        if (link.gidIndex() >= 0) {
            out.printf(" GID index       : %d%n", link.gidIndex());
        }
        out.println(" rdma_cm QPs     : " + (PerfCommand.DATA_EXCHANGE.equals(dataExchange) ? "ON" : "OFF"));
        out.println(" Data ex. method : " + dataExchange);
        out.println(" Threading       : " + host.threading().describe());
        out.println(" Measured on     : " + host.measuredOn() + " -- not a hardware figure");
        if (cycles) {
            out.println(LatencyReport.CYCLES_LINE);
        }
        out.println(LINE);
        if (addresses != null) {
            out.print(addresses);
            out.println(LINE);
        }
        columnHeader();
    }

    private void columnHeader() {
        StringBuilder sb = new StringBuilder();
        for (String c : columns) {
            sb.append(' ').append(pad(c));
        }
        out.println(sb.toString().stripTrailing());
    }

    /**
     * @param r a bandwidth row
     */
    void row(BandwidthResult r) {
        // perftest prints six decimals in Gb/s when the average is below 0.1 (REPORT_FMT_EXT)
        if (!full()) {
            out.println(fixed(output.equals("message_rate") ? r.messageRateMpps() : r.average(gbits), 6));
            return;
        }
        int decimals = gbits && r.averageGbps() < 0.1 ? 6 : 2;
        cells(Integer.toString(r.size()), Long.toString(r.iterations()), fixed(r.peak(gbits), decimals),
                fixed(r.average(gbits), decimals), fixed(r.messageRateMpps(), 6));
    }

    /**
     * @param r a latency row
     */
    void row(LatencyResult r) {
        if (!full()) {
            out.println(fixed(r.average(), 6));
            return;
        }
        cells(Integer.toString(r.size()), Long.toString(r.iterations()), fixed(r.min(), 2), fixed(r.max(), 2),
                fixed(r.typical(), 2), fixed(r.average(), 2), fixed(r.stdev(), 2), fixed(r.p99(), 2),
                fixed(r.p999(), 2));
    }

    /**
     * Prints a latency row's lists of samples ({@code -U}, {@code -H}) as perftest's {@code print_report_lat}: the
     * lists, then its dashed line and the column header again before the row (only the lists with
     * {@code --output}).
     *
     * @param listing the lists; nothing is printed if empty
     */
    void samples(String listing) {
        if (listing.isEmpty()) {
            return;
        }
        out.print(listing);
        if (full()) {
            out.println(LINE);
            columnHeader();
        }
    }

    /** Closes the table with perftest's dashed line. */
    void footer() {
        if (full()) {
            out.println(LINE);
        }
    }

    /** @return whether the table is printed whole, else only the figure {@code --output} names */
    boolean full() {
        return output == null;
    }

    private void cells(String... values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            sb.append(' ').append(i < values.length - 1 ? padTo(values[i], columns.get(i).length()) : values[i]);
        }
        out.println(sb);
    }

    private static String pad(String s) {
        return padTo(s, s.length());
    }

    private static String padTo(String s, int width) {
        return s + " ".repeat(Math.max(0, width + GAP - s.length()));
    }

    /**
     * @param v a value
     * @param decimals digits after the point
     * @return it with a point whatever the locale
     */
    static String fixed(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
