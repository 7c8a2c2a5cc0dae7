/**
 * rvt-ffm: memory regions over {@link java.lang.foreign.MemorySegment}s (Java 22+), of 64-bit length, for the memory
 * Java programs now hold large or off-heap (arenas, mapped files): {@link io.rvt.ffm.SegmentRegions}. A segment is
 * registered as a region in pieces ({@code io.rvt.api.ProtectionDomain.regMrPieces}); the rest of rvt stays on Java
 * 17 and {@code ByteBuffer}. The JPMS name is {@code io.rvt.ffm} (an automatic module), the bundle's the same, and the
 * bundle requires {@code osgi.ee} JavaSE 22.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package io.rvt.ffm;
