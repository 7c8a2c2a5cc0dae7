package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;

class AsyncEventTest {

    @Test
    void shouldTakeDeviceFromObjectWhenQpCqOrSrqEventIsCreated() {
        Device dev = mock(Device.class);
        QueuePair qp = mock(QueuePair.class);
        CompletionQueue cq = mock(CompletionQueue.class);
        SharedReceiveQueue srq = mock(SharedReceiveQueue.class);
        when(qp.device()).thenReturn(dev);
        when(qp.qpNum()).thenReturn(0x42);
        when(cq.device()).thenReturn(dev);
        when(srq.device()).thenReturn(dev);

        AsyncEvent q = AsyncEvent.ofQp(AsyncEventType.COMM_EST, qp);
        assertThat(q.type()).isEqualTo(AsyncEventType.COMM_EST);
        assertThat(q.device()).isSameAs(dev);
        assertThat(q.qp()).isSameAs(qp);
        assertThat(q.cq()).isNull();
        assertThat(q.srq()).isNull();
        assertThat(q.portNum()).isZero();
        assertThat(q.toString()).contains("COMM_EST").contains("qpn=66");

        AsyncEvent c = AsyncEvent.ofCq(AsyncEventType.CQ_ERR, cq);
        assertThat(c.device()).isSameAs(dev);
        assertThat(c.cq()).isSameAs(cq);
        assertThat(c.qp()).isNull();
        assertThat(c.srq()).isNull();

        AsyncEvent s = AsyncEvent.ofSrq(AsyncEventType.SRQ_LIMIT_REACHED, srq);
        assertThat(s.device()).isSameAs(dev);
        assertThat(s.srq()).isSameAs(srq);
        assertThat(s.qp()).isNull();
        assertThat(s.cq()).isNull();
    }

    @Test
    void shouldCarryPortOrNothingWhenPortOrDeviceEventIsCreated() {
        Device dev = mock(Device.class);
        AsyncEvent p = AsyncEvent.ofPort(AsyncEventType.PORT_ACTIVE, dev, 2);
        assertThat(p.device()).isSameAs(dev);
        assertThat(p.portNum()).isEqualTo(2);
        assertThat(p.qp()).isNull();
        assertThat(p.cq()).isNull();
        assertThat(p.srq()).isNull();
        assertThat(p.toString()).contains("port=2");

        AsyncEvent d = AsyncEvent.ofDevice(AsyncEventType.DEVICE_REMOVAL, dev);
        assertThat(d.device()).isSameAs(dev);
        assertThat(d.type()).isEqualTo(AsyncEventType.DEVICE_REMOVAL);
        assertThat(d.portNum()).isZero();
        assertThat(d.qp()).isNull();
    }
}
