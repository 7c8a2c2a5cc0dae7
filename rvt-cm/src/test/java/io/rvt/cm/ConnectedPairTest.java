package io.rvt.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.QpState;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ConnectedPairTest {
    @Test
    void shouldConnectTwoQpsOfOneProcessAndStopListeningWhenTheRequestIsIn() {
        try (SimLab lab = new SimLab(7)) {
            SimLab.Host a = lab.host();
            SimLab.Host b = lab.host();
            CompletableFuture<ConnectedPair> f = ConnectedPair.connectAsync(a.cm, a.qp(), b.cm, b.qp(), 4000, 1);
            ConnectedPair pair = lab.await("pair", f);
            assertThat(pair.active().qp().state()).isEqualTo(QpState.RTS);
            assertThat(pair.passive().qp().state()).isEqualTo(QpState.RTS);
            assertThat(pair.active().remoteQpn()).isEqualTo(pair.passive().qp().qpNum());
            assertThat(pair.passive().remoteQpn()).isEqualTo(pair.active().qp().qpNum());
            // the one-request listener is gone: the port can be listened on again
            b.cm.listen(4000).close();
            pair.close();
            lab.runUntil("both sides' IDs gone", () -> a.cm.idCount() == 0 && b.cm.idCount() == 0);
        }
    }

    @Test
    void shouldRefuseATakenPortWithEaddrinuseAndCreateNothing() {
        try (SimLab lab = new SimLab(8)) {
            SimLab.Host a = lab.host();
            SimLab.Host b = lab.host();
            try (Listener taken = b.cm.listen(4001)) {
                assertThatThrownBy(() -> ConnectedPair.connectAsync(a.cm, a.qp(), b.cm, b.qp(), 4001, 1))
                        .isInstanceOfSatisfying(CmException.class,
                                e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
                assertThat(a.cm.idCount()).isZero();
                assertThat(b.cm.idCount()).isEqualTo(1);
            }
        }
    }
}
