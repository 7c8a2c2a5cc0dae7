package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link OutputTemplate}: numbers and blank runs may differ, {@code ...} skips lines, nothing else may. */
class OutputTemplateTest {
    private static final List<String> OUTPUT = List.of("hca_id:\tsim0", "\ttransport:\t\t\tInfiniBand (simulated by sim0)",
            "\tfw_ver:\t\t\t\t0.0.001", "\tnode_guid:\t\t\t0052:5654:05a2:8270", "  local address:  LID 0x0001, PSN 0x410cc2",
            "8192000 bytes in 0.96 seconds = 68.52 Mbit/sec", "");

    @Test
    void shouldMatchOutputWhoseNumbersAndSpacingDiffer() {
        OutputTemplate t = new OutputTemplate(List.of("hca_id:\tsim0", "\ttransport:  InfiniBand (simulated by sim0)",
                "\tfw_ver:\t0.0.002", "\tnode_guid:\t0052:5654:0010:0010", "  local address:  LID 0x0002, PSN 0x000000",
                "1 bytes in 12.5 seconds = 3 Mbit/sec"));
        assertThat(t.mismatch(OUTPUT)).isNull();
    }

    @Test
    void shouldNameTheSampleLineTheOutputLacksOrHasInstead() {
        OutputTemplate stale = new OutputTemplate(List.of("hca_id:\tsim0", "\ttransport:\t\t\tInfiniBand (simulated by sim0)",
                "\tnode_guid:\t\t\t0052:5654:0010:0010", "..."));
        assertThat(stale.mismatch(OUTPUT)).startsWith("sample line 3 '\tnode_guid:");
        OutputTemplate words = new OutputTemplate(List.of("hca_id:\tsim1", "..."));
        assertThat(words.mismatch(OUTPUT)).startsWith("sample line 1 ");
    }

    @Test
    void shouldSkipAnyLinesAtAnEllipsisAndNoneElsewhere() {
        assertThat(new OutputTemplate(List.of("hca_id:\tsim0", "... (the rest)", "8192000 bytes in 0.96 seconds = 1 Mbit/sec"))
                .mismatch(OUTPUT)).isNull();
        assertThat(new OutputTemplate(List.of("hca_id:\tsim0", "...")).mismatch(OUTPUT)).isNull();
        assertThat(new OutputTemplate(List.of("hca_id:\tsim0")).mismatch(OUTPUT)).as("the rest of the output unshown")
                .isNotNull();
    }
}
