package io.rvt.api.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AethTest {

    private static final int[] TABLE = {
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
        256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
    };

    @Test
    void shouldMatchRdmavtCreditTableWhenEveryCodeIsLookedUp() {
        for (int code = 0; code <= 30; code++) {
            assertThat(Aeth.credits(code)).as("code %d", code).isEqualTo(TABLE[code]);
        }
    }

    @Test
    void shouldChooseLargestCodeNotAboveAvailableWhenEveryCountUpTo70000IsEncoded() {
        for (int n = 0; n <= 70_000; n++) {
            int expected = 0;
            for (int c = 0; c <= 30; c++) {
                if (Aeth.credits(c) <= n) {
                    expected = c;
                }
            }
            assertThat(Aeth.creditCode(n)).as("available %d", n).isEqualTo(expected);
        }
        assertThat(Aeth.creditCode(Integer.MAX_VALUE)).isEqualTo(30);
    }

    @Test
    void shouldHaveIbAethConstantsWhenComparedWithIbta() {
        assertThat(Aeth.CREDIT_SHIFT).isEqualTo(24);
        assertThat(Aeth.CREDIT_MASK).isEqualTo(0x1F);
        assertThat(Aeth.CREDIT_INVAL).isEqualTo(0x1F);
        assertThat(Aeth.NAK_SHIFT).isEqualTo(29);
        assertThat(Aeth.SYNDROME_ACK).isZero();
        assertThat(Aeth.SYNDROME_RNR_NAK).isEqualTo(1);
        assertThat(Aeth.SYNDROME_NAK).isEqualTo(3);
    }

    @Test
    void shouldExtractFieldsWhenAethIsDecoded() {
        int ack = (0x15 << 24) | 0xABCDEF;
        assertThat(Aeth.code(ack)).isEqualTo(0x15);
        assertThat(Aeth.msn(ack)).isEqualTo(0xABCDEF);
        assertThat(Aeth.syndromeClass(ack)).isEqualTo(Aeth.SYNDROME_ACK);

        int rnr = (Aeth.SYNDROME_RNR_NAK << 29) | (0x0E << 24) | 0x000001;
        assertThat(Aeth.syndromeClass(rnr)).isEqualTo(1);
        assertThat(Aeth.code(rnr)).isEqualTo(0x0E);
        assertThat(Aeth.msn(rnr)).isEqualTo(1);

        int nak = (Aeth.SYNDROME_NAK << 29) | (0x1F << 24) | 0xFFFFFF;
        assertThat(Aeth.syndromeClass(nak)).isEqualTo(3);
        assertThat(Aeth.code(nak)).isEqualTo(Aeth.CREDIT_INVAL);
        assertThat(Aeth.msn(nak)).isEqualTo(0xFFFFFF);
    }

    @Test
    void shouldTreatTopBitAsUnsignedWhenSyndromeClassIsExtracted() {
        int aeth = 0xFF00_0000 | 0x123456; // class 7, code 0x1F
        assertThat(Aeth.syndromeClass(aeth)).isEqualTo(7);
        assertThat(Aeth.code(aeth)).isEqualTo(0x1F);
        assertThat(Aeth.msn(aeth)).isEqualTo(0x123456);
        assertThat(Aeth.syndromeClass(0x8000_0000)).isEqualTo(4);
    }

    @Test
    void shouldRoundTripCodeWhenComputedAethIsDecoded() {
        for (int n : new int[] {0, 1, 5, 100, 32768, 70000}) {
            int code = Aeth.creditCode(n);
            int aeth = (code << Aeth.CREDIT_SHIFT) | (0x777777 & Seq24.MASK);
            assertThat(Aeth.code(aeth)).as("available %d", n).isEqualTo(code);
            assertThat(Aeth.credits(Aeth.code(aeth))).as("available %d", n).isLessThanOrEqualTo(n);
        }
    }
}
