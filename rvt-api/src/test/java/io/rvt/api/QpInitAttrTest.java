package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

import org.junit.jupiter.api.Test;

class QpInitAttrTest {

    @Test
    void shouldDefaultToRcSignalAllWhenCreated() {
        QpInitAttr a = new QpInitAttr();
        assertThat(a.qpType()).isEqualTo(QpType.RC);
        assertThat(a.sigType()).isEqualTo(SigType.SIGNAL_ALL_WR);
        assertThat(a.cap()).isSameAs(a.cap());
        assertThat(QpInitAttr.CREATE_NETDEV_USE).isEqualTo(1 << 7);
    }

    @Test
    void shouldRejectNullOrOutOfRangeWhenSet() {
        QpInitAttr a = new QpInitAttr();
        assertThatThrownBy(() -> a.qpType(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("qpType");
        assertThatThrownBy(() -> a.sendCq(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sendCq");
        assertThatThrownBy(() -> a.recvCq(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recvCq");
        assertThatThrownBy(() -> a.sigType(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sigType");
        assertThatThrownBy(() -> a.portNum(256)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("portNum").hasMessageContaining("256");
        assertThatThrownBy(() -> a.portNum(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("portNum").hasMessageContaining("-1");
    }

    @Test
    void shouldKeepValuesWhenSet() {
        CompletionQueue scq = mock(CompletionQueue.class);
        CompletionQueue rcq = mock(CompletionQueue.class);
        SharedReceiveQueue srq = mock(SharedReceiveQueue.class);
        AsyncEventHandler h = mock(AsyncEventHandler.class);
        QpInitAttr a = new QpInitAttr().qpType(QpType.UD).sendCq(scq).recvCq(rcq).srq(srq)
                .sigType(SigType.SIGNAL_REQ_WR).portNum(255).createFlags(QpInitAttr.CREATE_NETDEV_USE)
                .eventHandler(h);
        assertThat(a.qpType()).isEqualTo(QpType.UD);
        assertThat(a.sendCq()).isSameAs(scq);
        assertThat(a.recvCq()).isSameAs(rcq);
        assertThat(a.srq()).isSameAs(srq);
        assertThat(a.sigType()).isEqualTo(SigType.SIGNAL_REQ_WR);
        assertThat(a.portNum()).isEqualTo(255);
        assertThat(a.createFlags()).isEqualTo(1 << 7);
        assertThat(a.eventHandler()).isSameAs(h);
        assertThat(a.srq(null).srq()).isNull();
    }
}
