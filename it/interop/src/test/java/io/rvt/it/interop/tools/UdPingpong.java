package io.rvt.it.interop.tools;

import io.rvt.api.QpType;

/**
 * rvt's {@code ibv_ud_pingpong} (libibverbs/examples/ud_pingpong.c): {@link Pingpong} over UD. Usage:
 * {@code UdPingpong [options] [host] --bind ADDR}.
 */
public final class UdPingpong extends Pingpong {
    /** The example's transport. */
    public UdPingpong() {
        super("ibv_ud_pingpong", QpType.UD);
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new UdPingpong(), args);
    }
}
