package io.rvt.it.interop.tools;

import io.rvt.api.QpType;

/**
 * rvt's {@code ibv_uc_pingpong} (libibverbs/examples/uc_pingpong.c): {@link Pingpong} over UC. Usage:
 * {@code UcPingpong [options] [host] --bind ADDR}.
 */
public final class UcPingpong extends Pingpong {
    /** The example's transport. */
    public UcPingpong() {
        super("ibv_uc_pingpong", QpType.UC);
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        ToolRunner.main(new UcPingpong(), args);
    }
}
