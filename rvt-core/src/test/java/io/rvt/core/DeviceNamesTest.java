package io.rvt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rvt.api.Errno;
import io.rvt.api.VerbsException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Device names as ib_core's {@code assign_name} gives them: patterns take the lowest free index, fixed names are unique. */
class DeviceNamesTest {

    @Test
    void shouldGiveTheLowestFreeIndexOfThePatternWhenTheNameHasPercentD() {
        assertThat(DeviceNames.assign("sim%d", List.of())).isEqualTo("sim0");
        assertThat(DeviceNames.assign("sim%d", List.of("sim0"))).isEqualTo("sim1");
        assertThat(DeviceNames.assign("sim%d", List.of("sim1", "sim2"))).isEqualTo("sim0");
        assertThat(DeviceNames.assign("sim%d", List.of("sim0", "sim2"))).isEqualTo("sim1");
        assertThat(DeviceNames.assign("hfi1_%d", List.of("hfi1_0"))).isEqualTo("hfi1_1");
        assertThat(DeviceNames.assign("%d-roce", List.of("0-roce"))).isEqualTo("1-roce");
    }

    @Test
    void shouldIgnoreNamesOfOtherPatternsWhenPickingTheIndex() {
        // "sim00" and "sim01" are not what sim%d makes; "simx" and "roce0" are not of the pattern at all
        assertThat(DeviceNames.assign("sim%d", List.of("sim00", "sim01", "simx", "roce0", "sim", "sim0a")))
                .isEqualTo("sim0");
        assertThat(DeviceNames.assign("roce%d", List.of("sim0", "sim1"))).isEqualTo("roce0");
    }

    @Test
    void shouldTakeAFixedNameAsItIsWhenFree() {
        assertThat(DeviceNames.assign("hca-a", List.of("hca-b", "sim0"))).isEqualTo("hca-a");
        assertThat(DeviceNames.assign("sim0", List.of("sim1"))).isEqualTo("sim0");
    }

    @Test
    void shouldRefuseATakenFixedNameWithEnfileNamingIt() {
        assertThatThrownBy(() -> DeviceNames.assign("hca-a", Set.of("hca-a")))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.ENFILE);
                    assertThat(e.getMessage()).contains("'hca-a'").contains("taken");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "a b", "a/b", "sim%d%d", "sim%s", "50%", "%", "tab\there"})
    void shouldRefuseAnUnusableNameWithEinvalNamingIt(String bad) {
        assertThatThrownBy(() -> DeviceNames.assign(bad, List.of()))
                .isInstanceOfSatisfying(VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).contains("'" + bad + "'");
                });
    }

    @Test
    void shouldRefuseNullAndOverlongNames() {
        assertThatThrownBy(() -> DeviceNames.assign(null, List.of())).isInstanceOf(VerbsException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> DeviceNames.assign("x".repeat(64), List.of())).isInstanceOf(VerbsException.class)
                .hasMessageContaining("63");
    }
}
