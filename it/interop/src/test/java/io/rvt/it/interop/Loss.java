package io.rvt.it.interop;

import io.rvt.testkit.Shell;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Random loss of RoCEv2 packets (UDP destination port 4791: data, ACKs and the CM's MADs, both ways) on the wire
 * between rvt and the guest: an nftables table of the {@code netdev} family on the peer namespace's TAP device, with
 * rules {@code numgen random mod 100 < N counter drop} on its ingress (the guest's packets, before rvt's stack sees
 * them) and egress (rvt's, after its stack sent them), two a hook so that the drops are counted by what they ask of
 * RC: packets whose loss no RC retransmission repairs (an RC ACKNOWLEDGE, opcode 0x11, which a later ACK covers; a UD
 * SEND_ONLY, 0x64: the CM's MADs, which the CM sends again) and all the others (requests, READ responses, atomic
 * ACKs). The host kernel here has no {@code sch_netem}. The device's hooks, not the IP stack's input and output:
 * a drop on the output hook is no loss but a refusal, {@code sendmmsg} stops at the refused datagram, and driver-jni
 * offers it again in its next call (one refused at the head of a call it drops and counts), so a "lost" request
 * arrived after all; at the device's egress a drop is silent to the sender, as on a wire. Each hook also keeps the
 * dropped packets' UDP source port, BTH opcode, destination QP and PSN in a set of its own ({@link #drops()}), so
 * that a failure can say what was lost.
 */
public final class Loss implements AutoCloseable {
    /** The device's family: its hooks see the packets as the wire carries them, IPv4 and IPv6 alike. */
    private static final String FAMILY = "netdev";
    private static final AtomicInteger TABLES = new AtomicInteger();
    /** The device's hooks: ingress carries the guest's packets to rvt, egress rvt's to the guest. */
    private static final String[] HOOKS = {"ingress", "egress"};
    private static final Pattern PACKETS = Pattern.compile("counter packets (\\d+)[^\\n]*");
    /** The BTH opcodes whose loss no RC retransmission repairs: RC ACKNOWLEDGE, UD SEND_ONLY (the CM's MADs). */
    private static final String NO_RESEND = "{ 0x11, 0x64 }";
    private static final String NO_RESEND_COMMENT = "no RC resend";
    /** What a drop set keeps of a packet: UDP source port, BTH opcode, destination QP, PSN. */
    private static final String DROP_KEY = "udp sport . @th,64,8 . @th,104,24 . @th,136,24";
    private static final Pattern ELEMENTS = Pattern.compile("elements = \\{([^}]*)}");

    private final String netns;
    private final String table;
    private final int percent;

    private Loss(String netns, String table, int percent) {
        this.netns = netns;
        this.table = table;
        this.percent = percent;
    }

    /**
     * Starts dropping {@code percent} % of the RoCEv2 packets that {@code device} in {@code netns} carries.
     *
     * @param netns the namespace
     * @param device the namespace's end of the link to the peer (its TAP)
     * @param percent 1..100
     * @return the loss, until {@link #close()}
     * @throws IllegalArgumentException if {@code percent} is out of range
     * @throws IllegalStateException naming the nft command and its output if it fails
     */
    static Loss add(String netns, String device, int percent) {
        if (percent < 1 || percent > 100) {
            throw new IllegalArgumentException("loss percent must be 1..100, got " + percent);
        }
        String table = "rvtloss" + TABLES.incrementAndGet();
        Loss loss = new Loss(netns, table, percent);
        nft(netns, "add", "table", FAMILY, table);
        try {
            for (String hook : HOOKS) {
                nft(netns, "add", "chain", FAMILY, table, hook, "{ type filter hook " + hook + " device \""
                        + device + "\" priority 0 ; }");
                nft(netns, "add", "set", FAMILY, table, "drops_" + hook, "{ typeof " + DROP_KEY
                        + " ; size 65536 ; flags dynamic ; }");
                String record = "add @drops_" + hook + " { " + DROP_KEY + " } ";
                // numgen's values are 0..99: 100 % is a rule without it
                String sample = percent < 100 ? "numgen random mod 100 < " + percent + " " : "";
                // the BTH's opcode is the UDP payload's first byte: bits 64..71 from the transport header
                nft(netns, "add", "rule", FAMILY, table, hook, "udp dport 4791 @th,64,8 " + NO_RESEND + " " + sample
                        + record + "counter drop comment \"" + NO_RESEND_COMMENT + "\"");
                nft(netns, "add", "rule", FAMILY, table, hook, "udp dport 4791 @th,64,8 != " + NO_RESEND + " "
                        + sample + record + "counter drop");
            }
        } catch (RuntimeException e) {
            loss.close();
            throw e;
        }
        return loss;
    }

    /** @return the loss rate, in percent */
    public int percent() {
        return percent;
    }

    /** @return how many packets the rules have dropped so far, both hooks together */
    public long dropped() {
        return count(true) + count(false);
    }

    /**
     * @return how many of the dropped packets an RC sender has to send again: requests, READ responses and atomic
     *         ACKs, not RC ACKs (a later one covers a lost one) nor the CM's MADs (the CM sends those again)
     */
    public long droppedNeedingResend() {
        return count(false);
    }

    private long count(boolean noResend) {
        Matcher m = PACKETS.matcher(nft(netns, "list", "table", FAMILY, table));
        long n = 0;
        while (m.find()) {
            if (m.group().contains(NO_RESEND_COMMENT) == noResend) {
                n += Long.parseLong(m.group(1));
            }
        }
        return n;
    }

    /**
     * @return the packets dropped so far, one line each ({@code ingress}: the guest's, towards rvt;
     *         {@code egress}: rvt's): UDP source port, BTH opcode, destination QP and PSN; a packet dropped twice
     *         alike is one line
     */
    public List<String> drops() {
        List<String> lines = new ArrayList<>();
        for (String hook : HOOKS) {
            Matcher m = ELEMENTS.matcher(nft(netns, "list", "set", FAMILY, table, "drops_" + hook));
            while (m.find()) {
                for (String element : m.group(1).split(",")) {
                    String[] f = element.trim().split("\\s*\\.\\s*");
                    if (f.length == 4) {
                        lines.add(String.format("%s: from port %d, opcode 0x%02x, QP 0x%06x, PSN %d", hook,
                                Long.decode(f[0]), Long.decode(f[1]), Long.decode(f[2]), Long.decode(f[3])));
                    }
                }
            }
        }
        return lines;
    }

    /** Removes the rules (their table); quiet if already gone. */
    @Override
    public void close() {
        Shell.runQuietly("ip", "netns", "exec", netns, "nft", "delete", "table", FAMILY, table);
    }

    private static String nft(String netns, String... args) {
        String[] cmd = new String[args.length + 5];
        cmd[0] = "ip";
        cmd[1] = "netns";
        cmd[2] = "exec";
        cmd[3] = netns;
        cmd[4] = "nft";
        System.arraycopy(args, 0, cmd, 5, args.length);
        return Shell.run(cmd);
    }
}
