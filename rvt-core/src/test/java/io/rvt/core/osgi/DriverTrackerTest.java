package io.rvt.core.osgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.rvt.api.AsyncEventType;
import io.rvt.api.CompletionQueue;
import io.rvt.api.Device;
import io.rvt.api.DeviceAttributes;
import io.rvt.api.QpAttr;
import io.rvt.api.QpAttrMask;
import io.rvt.api.QpInitAttr;
import io.rvt.api.QpState;
import io.rvt.api.QpType;
import io.rvt.api.QueuePair;
import io.rvt.api.spi.Callback;
import io.rvt.core.TestDriver;
import io.rvt.testkit.ManualTimerService;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.mockito.ArgumentCaptor;
import org.mockito.Captor;
import org.mockito.InOrder;
import org.mockito.Mock;
import org.mockito.junit.jupiter.MockitoExtension;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

@ExtendWith(MockitoExtension.class)
class DriverTrackerTest {
    @Mock
    BundleContext context;
    @Mock
    ServiceRegistration<Device> deviceRegistration;
    @Mock
    ServiceRegistration<Object> commandRegistration;
    @Captor
    ArgumentCaptor<Device> device;
    @Captor
    ArgumentCaptor<Dictionary<String, Object>> props;

    DriverTracker tracker;

    @BeforeEach
    void setUp() {
        when(context.registerService(eq(Object.class), any(Object.class), any())).thenReturn(commandRegistration);
        tracker = new DriverTracker(context);
    }

    private TestDriver driver() {
        TestDriver d = new TestDriver();
        d.timerService(new ManualTimerService());
        return d;
    }

    @Test
    void shouldPublishOneDeviceServiceWithItsPropertiesPerDriver() {
        when(context.registerService(eq(Device.class), device.capture(), props.capture()))
                .thenReturn(deviceRegistration);
        TestDriver d = driver();
        tracker.addDriver(d, Map.of("service.id", 7L));

        Device dev = device.getValue();
        assertThat(dev.isAlive()).isTrue();
        Dictionary<String, Object> p = props.getValue();
        assertThat(p.get(DriverTracker.PROP_DEVICE_NAME)).isEqualTo(dev.name());
        assertThat(p.get(DriverTracker.PROP_DRIVER)).isEqualTo(d.name());
        assertThat(p.get(DriverTracker.PROP_PORTS)).isEqualTo(1);
        assertThat((String) p.get(DriverTracker.PROP_NODE_GUID)).as("ibverbs form")
                .matches("([0-9a-f]{4}:){3}[0-9a-f]{4}");
        assertThat(new RvtCommands(tracker).devicesText()).contains(dev.name());
    }

    @Test
    void shouldFlushQpsRaiseRemovalThenWithdrawTheServiceWhenTheDriverGoes() {
        when(context.registerService(eq(Device.class), device.capture(), any())).thenReturn(deviceRegistration);
        TestDriver d = driver();
        tracker.addDriver(d, Map.of());
        Device dev = device.getValue();
        List<AsyncEventType> events = new ArrayList<>();
        dev.setAsyncEventHandler(e -> events.add(e.type()));
        CompletionQueue cq = dev.createCq(16, 0, null, null);
        QpInitAttr init = new QpInitAttr().qpType(QpType.RC).sendCq(cq).recvCq(cq);
        init.cap().maxSendWr(4).maxRecvWr(4).maxSendSge(1).maxRecvSge(1);
        QueuePair qp = dev.allocPd().createQp(init);
        qp.modifyQp(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(0),
                QpAttrMask.mask(QpAttrMask.STATE, QpAttrMask.PKEY_INDEX, QpAttrMask.PORT, QpAttrMask.ACCESS_FLAGS));
        assertThat(new RvtCommands(tracker).qpsText(null)).contains(String.format("0x%06x", qp.qpNum()));

        tracker.removeDriver(d);

        assertThat(dev.isAlive()).isFalse();
        assertThat(qp.state().name()).isEqualTo("ERR");
        assertThat(events).contains(AsyncEventType.DEVICE_REMOVAL);
        verify(deviceRegistration).unregister();
        assertThat(tracker.devices()).isEmpty();
        assertThat(new RvtCommands(tracker).devicesText()).contains("(no devices)");
    }

    @Test
    void shouldTellTheDevicesClientsWhileItsServiceIsStillRegisteredWhenTheDriverGoes() {
        when(context.registerService(eq(Device.class), device.capture(), any())).thenReturn(deviceRegistration);
        TestDriver d = driver();
        tracker.addDriver(d, Map.of());
        Device dev = device.getValue();
        List<String> order = new ArrayList<>();
        dev.registerClient(x -> order.add("client told, device alive " + x.isAlive()));
        org.mockito.Mockito.doAnswer(inv -> order.add("service withdrawn")).when(deviceRegistration).unregister();

        tracker.removeDriver(d);

        assertThat(order).containsExactly("client told, device alive true", "service withdrawn");
    }

    @Test
    void shouldRefuseADriverThatBreaksTheSpiWithoutADevice() {
        TestDriver broken = driver().without(Callback.GET_GUID_BE);
        tracker.addDriver(broken, Map.of("service.id", 42L));

        verify(context, never()).registerService(eq(Device.class), any(Device.class), any());
        assertThat(tracker.refused()).singleElement().asString().contains("service 42").contains("getGuidBe");
        assertThat(new RvtCommands(tracker).devicesText()).contains("refused: ").contains("getGuidBe");
        tracker.removeDriver(broken); // unknown to the tracker: nothing happens
    }

    @Test
    void shouldRemoveEveryDeviceAndTheCommandsWhenRvtCoreStops() {
        when(context.registerService(eq(Device.class), device.capture(), any())).thenReturn(deviceRegistration);
        tracker.addDriver(driver(), Map.of());
        tracker.addDriver(driver(), Map.of());
        assertThat(tracker.devices()).hasSize(2);

        tracker.deactivate();

        assertThat(device.getAllValues()).noneMatch(Device::isAlive);
        InOrder order = inOrder(deviceRegistration, commandRegistration);
        order.verify(deviceRegistration, org.mockito.Mockito.times(2)).unregister();
        order.verify(commandRegistration).unregister();
        // A driver arriving after deactivation gets no service.
        tracker.addDriver(driver(), Map.of());
        verify(context, org.mockito.Mockito.times(2)).registerService(eq(Device.class), any(Device.class), any());
    }

    @Test
    void shouldShowPortsAndNonZeroCounters() {
        when(context.registerService(eq(Device.class), device.capture(), any())).thenReturn(deviceRegistration);
        tracker.addDriver(driver(), Map.of());
        Device dev = device.getValue();
        dev.allocPd();
        RvtCommands cmd = new RvtCommands(tracker);
        assertThat(cmd.portsText()).contains(dev.name()).contains("ACTIVE");
        assertThat(cmd.statText(dev.name())).contains("pds_allocated");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> cmd.stat("nope"))
                .hasMessageContaining("no device named 'nope'");
    }

    @Test
    void shouldPrintEachCommandsTextAndReturnNothingSoKarafsBatchModeShowsIt() throws Exception {
        when(context.registerService(eq(Device.class), device.capture(), any())).thenReturn(deviceRegistration);
        tracker.addDriver(driver(), Map.of());
        Device dev = device.getValue();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream ps = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        RvtCommands cmd = new RvtCommands(tracker, () -> ps);
        for (String f : RvtCommands.FUNCTIONS) {
            assertThat(RvtCommands.class.getMethod(f).getReturnType()).as(f).isEqualTo(void.class);
        }

        cmd.devices();
        cmd.ports();
        cmd.qps();
        cmd.stat(dev.name());

        String printed = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(printed).startsWith(cmd.devicesText()).contains(cmd.portsText()).contains(cmd.qpsText(null))
                .endsWith(cmd.statText(dev.name()));
        assertThat(printed).contains(DeviceAttributes.formatGuid(dev.queryDevice().nodeGuid()));
    }
}
