package io.rvt.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PortAttrTest {

    @Test
    void shouldRejectNullEnumWhenSet() {
        PortAttr p = new PortAttr().state(PortState.ACTIVE).maxMtu(PathMtu.MTU_4096).activeMtu(PathMtu.MTU_2048);
        assertThatThrownBy(() -> p.state(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("state");
        assertThatThrownBy(() -> p.maxMtu(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxMtu");
        assertThatThrownBy(() -> p.activeMtu(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("activeMtu");
        assertThat(p.state()).isEqualTo(PortState.ACTIVE);
        assertThat(p.maxMtu()).isEqualTo(PathMtu.MTU_4096);
        assertThat(p.activeMtu()).isEqualTo(PathMtu.MTU_2048);
    }
}
