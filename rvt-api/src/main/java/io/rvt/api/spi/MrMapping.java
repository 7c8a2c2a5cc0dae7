package io.rvt.api.spi;

import java.nio.ByteBuffer;

/**
 * What a region maps, as one immutable value: its one buffer or its pieces, the pieces' shift, its virtual address
 * and its length, the fields of rdmavt's {@code struct rvt_mregion} ({@code map}, {@code page_shift}, {@code iova},
 * {@code length}) that a key check reads together. A region replaces its mapping as a whole when it changes
 * ({@code rvt_map_mr_sg}, a zero-based key's address), so whoever takes it once through {@link DriverMr#mapping()}
 * sees a consistent set with one read; {@link Sge#set} does so for every entry. An rvt extension.
 */
public final class MrMapping {
    /** The one buffer, or for a region in pieces its first piece. */
    final ByteBuffer memory;
    /** The pieces of a region in pieces, else null. */
    final ByteBuffer[] pieces;
    /** log2 of the pieces' size, 0 for one buffer. */
    final int shift;
    final long addr;
    final long length;

    /**
     * A region of one buffer, its length the buffer's capacity.
     *
     * @param memory the buffer, index 0 at {@code addr} (shared: absolute access only)
     * @param addr the virtual address of its first byte
     * @throws IllegalArgumentException if {@code memory} is null
     */
    public MrMapping(ByteBuffer memory, long addr) {
        this(check(memory), null, 0, addr, memory.capacity());
    }

    /**
     * A region in pieces ({@link DriverMr#pieceShift()}): every piece but the last holds {@code 1 << shift} bytes.
     *
     * @param pieces the pieces, in address order (the array is copied, the buffers are shared)
     * @param shift log2 of the pieces' size, 12 to 30
     * @param addr the virtual address of the first byte of piece 0
     * @param length the region's bytes, the sum of the pieces' capacities
     * @throws IllegalArgumentException naming the value if there is no piece, a piece is null, {@code shift} is out
     *                                  of range or {@code length} is not the pieces' sum
     */
    public MrMapping(ByteBuffer[] pieces, int shift, long addr, long length) {
        this(pieces == null || pieces.length == 0 ? null : pieces[0], checkPieces(pieces, shift, length), shift, addr,
                length);
    }

    private MrMapping(ByteBuffer memory, ByteBuffer[] pieces, int shift, long addr, long length) {
        this.memory = memory;
        this.pieces = pieces;
        this.shift = shift;
        this.addr = addr;
        this.length = length;
    }

    private static ByteBuffer check(ByteBuffer memory) {
        if (memory == null) {
            throw new IllegalArgumentException("MrMapping: memory is null");
        }
        return memory;
    }

    private static ByteBuffer[] checkPieces(ByteBuffer[] pieces, int shift, long length) {
        if (pieces == null || pieces.length == 0) {
            throw new IllegalArgumentException("MrMapping: no pieces (" + (pieces == null ? "null" : "0") + ")");
        }
        if (shift < 12 || shift > 30) {
            throw new IllegalArgumentException("MrMapping: piece shift " + shift + " is outside 12..30");
        }
        long sum = 0;
        for (int i = 0; i < pieces.length; i++) {
            if (pieces[i] == null) {
                throw new IllegalArgumentException("MrMapping: piece " + i + " is null");
            }
            sum += pieces[i].capacity();
        }
        if (sum != length) {
            throw new IllegalArgumentException("MrMapping: length " + length + " is not the pieces' " + sum);
        }
        return pieces.clone();
    }

    /**
     * @param newAddr the virtual address of the first byte
     * @return the same bytes at {@code newAddr} (a zero-based key's address, rdmavt's {@code iova})
     */
    public MrMapping at(long newAddr) {
        return new MrMapping(memory, pieces, shift, newAddr, length);
    }

    /** @return the one buffer, or for a region in pieces its first piece ({@link DriverMr#memory()}) */
    public ByteBuffer memory() {
        return memory;
    }

    /** @return log2 of the pieces' size, 0 for a region of one buffer ({@link DriverMr#pieceShift()}) */
    public int pieceShift() {
        return shift;
    }

    /** @return the number of pieces, 1 for a region of one buffer */
    public int pieceCount() {
        return pieces == null ? 1 : pieces.length;
    }

    /**
     * @param i the piece's index, {@code 0 <= i < pieceCount()}
     * @return piece {@code i} ({@link DriverMr#piece(int)}); for a region of one buffer that buffer
     */
    public ByteBuffer piece(int i) {
        return pieces == null ? memory : pieces[i];
    }

    /** @return the virtual address of the first byte ({@link DriverMr#addr()}) */
    public long addr() {
        return addr;
    }

    /** @return the region's bytes ({@link DriverMr#length()}) */
    public long length() {
        return length;
    }
}
