package io.rvt.it.broken;

import io.rvt.api.spi.DriverParams;
import io.rvt.api.spi.OperationTable;
import io.rvt.api.spi.RvtDriver;
import org.osgi.service.component.annotations.Component;

/**
 * A driver that breaks the SPI on purpose: it hands in no callback group, so every verb it does not decline lacks
 * its callbacks (query port has no {@code query_port_state}, modify QP no {@code schedule_send}, ...), and its
 * parameters ask for no port. rvt-core must refuse it with one log line naming the problem and publish no device.
 */
@Component(service = RvtDriver.class)
public final class BrokenDriver implements RvtDriver {
    @Override
    public String name() {
        return "broken";
    }

    @Override
    public DriverParams params() {
        return DriverParams.builder().nports(0).build();
    }

    @Override
    public OperationTable postParms() {
        return OperationTable.standard();
    }
}
