package io.rvt.it.interop;

import io.rvt.testkit.Shell;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Random loss of RoCEv2 packets (UDP destination port 4791: data, ACKs and the CM's MADs, both ways) in the Linux
 * peer's namespace: an nftables table of its own with rules {@code numgen random mod 100 < N counter drop} on the
 * input and on the output hook, two a hook so that the drops are counted by what they ask of RC: packets whose loss
 * no RC retransmission repairs (an RC ACKNOWLEDGE, opcode 0x11, which a later ACK covers; a UD SEND_ONLY, 0x64: the
 * CM's MADs, which the CM sends again) and all the others (requests, READ responses, atomic ACKs). The host kernel
 * here has no {@code sch_netem}. A datagram dropped on output makes the sender's {@code sendmsg} fail with EPERM
 * (driver-jni counts it as sent and lost).
 */
public final class Loss implements AutoCloseable {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final Pattern PACKETS = Pattern.compile("counter packets (\\d+)[^\\n]*");
    /** The BTH opcodes whose loss no RC retransmission repairs: RC ACKNOWLEDGE, UD SEND_ONLY (the CM's MADs). */
    private static final String NO_RESEND = "{ 0x11, 0x64 }";
    private static final String NO_RESEND_COMMENT = "no RC resend";

    private final String netns;
    private final String table;
    private final int percent;

    private Loss(String netns, String table, int percent) {
        this.netns = netns;
        this.table = table;
        this.percent = percent;
    }

    /**
     * Starts dropping {@code percent} % of the RoCEv2 packets into and out of {@code netns}.
     *
     * @param netns the namespace
     * @param percent 1..100
     * @return the loss, until {@link #close()}
     * @throws IllegalArgumentException if {@code percent} is out of range
     * @throws IllegalStateException naming the nft command and its output if it fails
     */
    static Loss add(String netns, int percent) {
        if (percent < 1 || percent > 100) {
            throw new IllegalArgumentException("loss percent must be 1..100, got " + percent);
        }
        String table = "rvtloss" + TABLES.incrementAndGet();
        Loss loss = new Loss(netns, table, percent);
        nft(netns, "add", "table", "inet", table);
        try {
            for (String hook : new String[] {"input", "output"}) {
                nft(netns, "add", "chain", "inet", table, hook, "{ type filter hook " + hook + " priority 0 ; }");
                // numgen's values are 0..99: 100 % is a rule without it
                String sample = percent < 100 ? "numgen random mod 100 < " + percent + " " : "";
                // the BTH's opcode is the UDP payload's first byte: bits 64..71 from the transport header
                nft(netns, "add", "rule", "inet", table, hook, "udp dport 4791 @th,64,8 " + NO_RESEND + " " + sample
                        + "counter drop comment \"" + NO_RESEND_COMMENT + "\"");
                nft(netns, "add", "rule", "inet", table, hook, "udp dport 4791 @th,64,8 != " + NO_RESEND + " "
                        + sample + "counter drop");
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
        Matcher m = PACKETS.matcher(nft(netns, "list", "table", "inet", table));
        long n = 0;
        while (m.find()) {
            if (m.group().contains(NO_RESEND_COMMENT) == noResend) {
                n += Long.parseLong(m.group(1));
            }
        }
        return n;
    }

    /** Removes the rules (their table); quiet if already gone. */
    @Override
    public void close() {
        Shell.runQuietly("ip", "netns", "exec", netns, "nft", "delete", "table", "inet", table);
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
