package io.rvt.transport.header;

import static io.rvt.transport.header.ExtensionHeader.AETH;
import static io.rvt.transport.header.ExtensionHeader.ATOMIC_ACK_ETH;
import static io.rvt.transport.header.ExtensionHeader.ATOMIC_ETH;
import static io.rvt.transport.header.ExtensionHeader.DETH;
import static io.rvt.transport.header.ExtensionHeader.FETH;
import static io.rvt.transport.header.ExtensionHeader.IETH;
import static io.rvt.transport.header.ExtensionHeader.IMM_DT;
import static io.rvt.transport.header.ExtensionHeader.RETH;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpcodeTest {

    /**
     * Rows copied by hand from the IBA Vol. 1 BTH OpCode table (§9.2.1, "headers following the BTH"), cross-read
     * with rxe_opcode.c: opcode, extension headers in wire order, payload?, header length (BTH + ETHs).
     */
    private static final Object[][] IBTA_ROWS = {
        {0x00, new int[] {}, true, 12},                      // RC SEND First
        {0x03, new int[] {IMM_DT}, true, 16},                // RC SEND Last with Immediate
        {0x06, new int[] {RETH}, true, 28},                  // RC RDMA WRITE First
        {0x07, new int[] {}, true, 12},                      // RC RDMA WRITE Middle
        {0x0B, new int[] {RETH, IMM_DT}, true, 32},          // RC RDMA WRITE Only with Immediate
        {0x0C, new int[] {RETH}, false, 28},                 // RC RDMA READ Request
        {0x0D, new int[] {AETH}, true, 16},                  // RC RDMA READ response First
        {0x0E, new int[] {}, true, 12},                      // RC RDMA READ response Middle
        {0x10, new int[] {AETH}, true, 16},                  // RC RDMA READ response Only
        {0x11, new int[] {AETH}, false, 16},                 // RC Acknowledge
        {0x12, new int[] {AETH, ATOMIC_ACK_ETH}, false, 24}, // RC ATOMIC Acknowledge
        {0x13, new int[] {ATOMIC_ETH}, false, 40},           // RC CmpSwap
        {0x14, new int[] {ATOMIC_ETH}, false, 40},           // RC FetchAdd
        {0x16, new int[] {IETH}, true, 16},                  // RC SEND Last with Invalidate
        {0x17, new int[] {IETH}, true, 16},                  // RC SEND Only with Invalidate
        {0x1C, new int[] {FETH, RETH}, false, 32},           // RC FLUSH (IBTA 1.5; rxe_opcode.c: FETH then RETH)
        {0x1D, new int[] {RETH}, true, 28},                  // RC ATOMIC WRITE (IBTA 1.5; 8 bytes of payload)
        {0x24, new int[] {}, true, 12},                      // UC SEND Only
        {0x29, new int[] {IMM_DT}, true, 16},                // UC RDMA WRITE Last with Immediate
        {0x2A, new int[] {RETH}, true, 28},                  // UC RDMA WRITE Only
        {0x64, new int[] {DETH}, true, 20},                  // UD SEND Only
        {0x65, new int[] {DETH, IMM_DT}, true, 24},          // UD SEND Only with Immediate
        {0x81, new int[] {}, false, 28},                     // RoCEv2 CNP (BTH + 16 reserved bytes)
    };

    /** Reserved, unsupported (RD) or not applicable to the transport. */
    private static final int[] INVALID = {
        0x15, 0x18, 0x1A, 0x1B, 0x1E, 0x1F, // RC reserved, and the CM's class operations rvt does not take
        0x2C, 0x2D, 0x31, 0x36, 0x37, // UC has no READ, ACK, atomics, invalidate
        0x3C, 0x3D, 0x5C, 0x5D, 0x7C, // FLUSH and ATOMIC WRITE are RC only here (rxe: RC, and RD which rvt lacks)
        0x40, 0x44, 0x4C, 0x55,       // RD
        0x60, 0x61, 0x66, 0x6A, 0x6C, // UD only has SEND Only (with Immediate)
        0x80, 0x82, 0xC0, 0xFF        // CNP variants, manufacturer specific
    };

    @Test
    void shouldMatchHandCheckedIbtaRowsWhenLookedUp() {
        for (Object[] row : IBTA_ROWS) {
            int opcode = (int) row[0];
            int[] headers = (int[]) row[1];
            String what = Opcode.name(opcode) + " (0x" + Integer.toHexString(opcode) + ")";
            int mask = 0;
            int offset = BthDescriptor.LENGTH;
            for (int h : headers) {
                mask |= h;
                assertThat(Opcode.extensionOffset(opcode, h)).as(what + " " + ExtensionHeader.name(h))
                        .isEqualTo(offset);
                offset += ExtensionHeader.length(h);
            }
            assertThat(Opcode.isValid(opcode)).as(what).isTrue();
            assertThat(Opcode.extensionHeaders(opcode)).as(what).isEqualTo(mask);
            assertThat(Opcode.hasPayload(opcode)).as(what).isEqualTo(row[2]);
            assertThat(Opcode.headerLength(opcode)).as(what).isEqualTo(row[3]);
        }
        for (int opcode : INVALID) {
            assertThat(Opcode.isValid(opcode)).as("0x%x", opcode).isFalse();
            assertThat(Opcode.headerLength(opcode)).isZero();
            assertThat(Opcode.extensionHeaders(opcode)).isZero();
            assertThat(Opcode.name(opcode)).isEqualTo("INVALID");
        }
    }

    @Test
    void shouldClassifyOpcodesAsTheirNamesSayForEveryByte() {
        int valid = 0;
        Set<String> names = new HashSet<>();
        for (int opcode = 0; opcode < 256; opcode++) {
            if (!Opcode.isValid(opcode)) {
                assertThat(Opcode.hasPayload(opcode) || Opcode.isRequest(opcode) || Opcode.isResponse(opcode)
                        || Opcode.isStart(opcode) || Opcode.isEnd(opcode) || Opcode.isCnp(opcode)).isFalse();
                continue;
            }
            valid++;
            String name = Opcode.name(opcode);
            String what = name + " (0x" + Integer.toHexString(opcode) + ")";
            assertThat(names.add(name)).as(what).isTrue();
            int ext = Opcode.extensionHeaders(opcode);
            int sum = BthDescriptor.LENGTH + (Opcode.isCnp(opcode) ? Opcode.CNP_RESERVED_LENGTH : 0);
            for (int h : ExtensionHeader.WIRE_ORDER) {
                sum += (ext & h) != 0 ? ExtensionHeader.length(h) : 0;
            }
            assertThat(Opcode.headerLength(opcode)).as(what).isEqualTo(sum);
            assertThat(Opcode.headerLength(opcode) % 4).as(what).isZero();
            assertThat(Opcode.hasImmediate(opcode)).as(what).isEqualTo(name.contains("WITH_IMMEDIATE"));
            assertThat(Opcode.hasInvalidate(opcode)).as(what).isEqualTo(name.contains("WITH_INVALIDATE"));
            assertThat(Opcode.isSend(opcode)).as(what).isEqualTo(name.contains("_SEND_"));
            assertThat(Opcode.isRdmaWrite(opcode)).as(what).isEqualTo(name.contains("RDMA_WRITE"));
            assertThat(Opcode.isRdmaReadRequest(opcode)).as(what).isEqualTo(name.endsWith("RDMA_READ_REQUEST"));
            assertThat(Opcode.isRdmaReadResponse(opcode)).as(what).isEqualTo(name.contains("RDMA_READ_RESPONSE"));
            assertThat(Opcode.isRdmaRead(opcode)).as(what).isEqualTo(name.contains("RDMA_READ"));
            assertThat(Opcode.isAtomic(opcode)).as(what)
                    .isEqualTo(name.endsWith("COMPARE_SWAP") || name.endsWith("FETCH_ADD"));
            assertThat(Opcode.isAcknowledge(opcode)).as(what).isEqualTo(name.equals("RC_ACKNOWLEDGE"));
            assertThat(Opcode.isAtomicAcknowledge(opcode)).as(what).isEqualTo(name.equals("RC_ATOMIC_ACKNOWLEDGE"));
            assertThat(Opcode.isFlush(opcode)).as(what).isEqualTo(name.equals("RC_FLUSH"));
            assertThat(Opcode.isAtomicWrite(opcode)).as(what).isEqualTo(name.equals("RC_ATOMIC_WRITE"));
            assertThat(Opcode.hasPayload(opcode)).as(what).isEqualTo(Opcode.isSend(opcode)
                    || Opcode.isRdmaWrite(opcode) || Opcode.isRdmaReadResponse(opcode) || Opcode.isAtomicWrite(opcode));
            if (Opcode.isCnp(opcode)) {
                assertThat(name).isEqualTo("CNP");
                assertThat(Opcode.isRequest(opcode) || Opcode.isResponse(opcode) || Opcode.isStart(opcode)
                        || Opcode.isEnd(opcode)).isFalse();
                continue;
            }
            assertThat(Opcode.isRequest(opcode)).as(what).isNotEqualTo(Opcode.isResponse(opcode));
            int positions = (Opcode.isFirst(opcode) ? 1 : 0) + (Opcode.isMiddle(opcode) ? 1 : 0)
                    + (Opcode.isLast(opcode) ? 1 : 0) + (Opcode.isOnly(opcode) ? 1 : 0);
            assertThat(positions).as(what).isEqualTo(1);
            assertThat(Opcode.isFirst(opcode)).as(what).isEqualTo(name.contains("_FIRST"));
            assertThat(Opcode.isMiddle(opcode)).as(what).isEqualTo(name.contains("_MIDDLE"));
            assertThat(Opcode.isLast(opcode)).as(what).isEqualTo(name.contains("_LAST"));
            assertThat(Opcode.isStart(opcode)).as(what).isEqualTo(Opcode.isFirst(opcode) || Opcode.isOnly(opcode));
            assertThat(Opcode.isEnd(opcode)).as(what).isEqualTo(Opcode.isLast(opcode) || Opcode.isOnly(opcode));
            assertThat(Opcode.transport(opcode)).as(what).isIn(Opcode.RC, Opcode.UC, Opcode.UD);
            if (Opcode.transport(opcode) != Opcode.RC) {
                assertThat(Opcode.isValid(Opcode.RC | Opcode.operation(opcode))).as(what).isTrue();
                assertThat(Opcode.isRequest(opcode)).as(what).isTrue();
            }
            if (Opcode.transport(opcode) == Opcode.UD) {
                assertThat(ext & DETH).as(what).isEqualTo(DETH);
            }
        }
        assertThat(valid).isEqualTo(25 + 12 + 2 + 1);
    }

    @Test
    void shouldNameEachConstantAsItsFieldWhenConstantsAreOpcodes() throws IllegalAccessException {
        int checked = 0;
        for (Field f : Opcode.class.getFields()) {
            String n = f.getName();
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class
                    && (n.startsWith("RC_") || n.startsWith("UC_") || n.startsWith("UD_"))) {
                int opcode = f.getInt(null);
                assertThat(Opcode.name(opcode)).isEqualTo(n);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(39);
        assertThat(Opcode.name(Opcode.ROCE_CNP)).isEqualTo("CNP");
        assertThat(Opcode.UC_RDMA_WRITE_ONLY).isEqualTo(0x2A);
        assertThat(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE).isEqualTo(0x65);
        assertThat(Opcode.RC_SEND_ONLY_WITH_INVALIDATE).isEqualTo(0x17);
        assertThat(Opcode.RC_FLUSH).as("IB_OPCODE_RC_FLUSH").isEqualTo(0x1C);
        assertThat(Opcode.RC_ATOMIC_WRITE).as("IB_OPCODE_RC_ATOMIC_WRITE").isEqualTo(0x1D);
    }

    /** rxe's FETH ({@code feth_init}): SEL in bits 5-4, PLT in bits 3-0 of a big-endian word, the rest 0. */
    @Test
    void shouldLayOutTheFethAsRxe() {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8);
        b.putInt(4, -1);
        assertThat(FethDescriptor.write(b, 0, 2, 1)).isEqualTo(4);
        assertThat(new byte[] {b.get(0), b.get(1), b.get(2), b.get(3)}).containsExactly(0, 0, 0, 0x12);
        assertThat(FethDescriptor.placementType(b, 0)).isEqualTo(2);
        assertThat(FethDescriptor.selectivityLevel(b, 0)).isEqualTo(1);
        assertThat(b.getInt(4)).as("the next header untouched").isEqualTo(-1);
        FethDescriptor.write(b, 0, 0xFF, 0xFF);
        assertThat(b.get(3)).as("out-of-range values masked").isEqualTo((byte) 0x3F);
        assertThat(Opcode.extensionHeaders(Opcode.RC_FLUSH)).as("FETH is bit 7: no sign extension")
                .isEqualTo(FETH | RETH);
        assertThat(ExtensionHeader.name(FETH)).isEqualTo("FETH");
    }

    @Test
    void shouldAnswerFalseWithoutThrowingWhenValueIsOutsideAByte() {
        for (int v : new int[] {-1, 256, 0x100 | Opcode.RC_SEND_ONLY, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertThat(Opcode.isValid(v)).isFalse();
            assertThat(Opcode.hasPayload(v)).isFalse();
            assertThat(Opcode.isOnly(v)).isFalse();
            assertThat(Opcode.headerLength(v)).isZero();
            assertThat(Opcode.extensionOffset(v, RETH)).isEqualTo(-1);
            assertThat(Opcode.name(v)).isEqualTo("INVALID");
        }
        assertThat(Opcode.extensionOffset(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, RETH | IMM_DT)).isEqualTo(-1);
        assertThat(Opcode.extensionOffset(Opcode.RC_SEND_ONLY, RETH)).isEqualTo(-1);
        assertThat(ExtensionHeader.length(RETH | AETH)).isZero();
        assertThat(ExtensionHeader.name(0)).isEqualTo("?");
    }
}
