package io.rvt.it.interop.tools;

import io.rvt.api.QpType;

/**
 * rvt's {@code ibv_rc_pingpong} (libibverbs/examples/rc_pingpong.c): {@link Pingpong} over RC. Usage:
 * {@code RcPingpong [options] [host] --bind ADDR}.
 */
public final class RcPingpong extends Pingpong {
    /** The example's transport. */
    public RcPingpong() {
        super("ibv_rc_pingpong", QpType.RC);
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new RcPingpong(), args);
    }
}
