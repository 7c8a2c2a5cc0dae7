package io.rvt.it.interop.tools;

import io.rvt.cm.CmEvent;
import io.rvt.cm.Connection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The CM waits of the tools, each bounded by the run's deadline. */
final class CmWaits {
    private CmWaits() {
    }

    /**
     * @param conn a connection one side ended or will end
     * @param ctx the run
     * @return the DISCONNECTED event
     * @throws ToolFailure if it does not end within the run's time
     */
    static CmEvent disconnected(Connection conn, ToolContext ctx) throws ToolFailure {
        try {
            return conn.disconnected().get(ctx.remaining().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ToolFailure("the connection did not end within the run's time (state " + conn.state() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure("interrupted waiting for the disconnect", e);
        } catch (ExecutionException e) {
            throw new ToolFailure("the disconnect failed: " + e.getCause(), e.getCause());
        }
    }
}
