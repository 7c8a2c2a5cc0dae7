package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import org.junit.jupiter.api.Test;

class DriverValidationExceptionTest {

    @Test
    void shouldNameDriverAndCarryEinvalWhenRegistrationIsRefused() {
        DriverValidationException e = new DriverValidationException("sim",
                "CREATE_QP needs callback qpPrivFree (qp_priv_free)");
        assertThat(e.getMessage()).startsWith("driver 'sim': CREATE_QP needs callback qpPrivFree (qp_priv_free)");
        assertThat(e.getMessage()).contains("EINVAL");
        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
        assertThat(e.driverName()).isEqualTo("sim");
        assertThat(e).isInstanceOf(VerbsException.class);
    }

    @Test
    void shouldQuoteDriverNameWhenNameHasSpaces() {
        DriverValidationException e = new DriverValidationException("my driver", "qpTableSize must not be 0");
        assertThat(e.getMessage()).startsWith("driver 'my driver': qpTableSize must not be 0");
        assertThat(e.driverName()).isEqualTo("my driver");
    }
}
