/**
 * The IBTA packet header codec: byte layouts ({@code LrhDescriptor}, {@code GrhDescriptor}, {@code BthDescriptor}
 * and one descriptor per extended transport header), the BTH opcode table ({@code Opcode}), an allocation-free
 * parser into a reusable flyweight ({@code PacketParser}, {@code PacketHeaders}), packet-level build helpers
 * ({@code PacketBuilder}) and the invariant CRC ({@code Icrc}) for native InfiniBand and RoCEv2 framing.
 *
 * <p>Every accessor takes a {@link java.nio.ByteBuffer} and an absolute index; none reads or moves the buffer's
 * position or limit, and all multi-byte fields are big-endian (network order) whatever the buffer's byte order.
 * Nothing here allocates on the per-packet path unless its Javadoc says so.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package io.rvt.transport.header;
