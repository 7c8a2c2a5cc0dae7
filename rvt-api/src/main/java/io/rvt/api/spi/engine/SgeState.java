package io.rvt.api.spi.engine;

import io.rvt.api.spi.Sge;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A cursor over a list of validated SGEs ({@code struct rvt_sge_state}): the current entry (a copy), the rest of the
 * list, how many entries remain ({@code num_sge}, the current one included) and the total length. Drivers walk a send
 * WQE with it to build packets ({@link #copyOut}), the core walks a receive WQE with it to place data
 * ({@link #copyIn}, rdmavt's {@code rvt_copy_sge}). Mutable; guarded by the owning QP's lock.
 */
public final class SgeState {
    private final Sge sge = new Sge();
    private Sge[] sgList;
    private int sgNext;
    private int numSge;
    private int totalLen;
    /** The entries hold no region references ({@link #borrow}): nothing is released as they are used up. */
    private boolean borrowed;

    /** @return the current entry (owned by this state) */
    public Sge sge() {
        return sge;
    }

    /** @return entries remaining, the current one included ({@code num_sge}) */
    public int numSge() {
        return numSge;
    }

    /** @return the total length this state was set up with ({@code total_len}) */
    public int totalLen() {
        return totalLen;
    }

    /**
     * @param len the new total length
     */
    public void totalLen(int len) {
        this.totalLen = len;
    }

    /**
     * Points the state at {@code count} entries of {@code list} starting at {@code first}; the current entry becomes
     * a copy of {@code list[first]}. No references are taken: the entries' references move with the cursor.
     *
     * @param list the entries
     * @param first index of the first entry
     * @param count entries to walk (0 makes the state empty)
     * @param total total length in bytes
     */
    public void init(Sge[] list, int first, int count, int total) {
        this.borrowed = false;
        this.sgList = list;
        this.numSge = count;
        this.totalLen = total;
        if (count > 0) {
            sge.copyFrom(list[first]);
            sgNext = first + 1;
        } else {
            sge.clear();
            sgNext = first;
        }
    }

    /**
     * Makes the state a single entry (for RDMA WRITE/READ targets validated with {@code rvt_rkey_ok}).
     *
     * @param single the entry, copied
     * @param total total length
     */
    public void initSingle(Sge single, int total) {
        borrowed = false;
        sge.copyFrom(single);
        sgList = null;
        sgNext = 0;
        numSge = 1;
        totalLen = total;
    }

    /** Empties the state without touching references ({@code num_sge = 0}). */
    public void clear() {
        borrowed = false;
        numSge = 0;
        sgList = null;
        sge.clear();
    }

    /**
     * Mirrors {@code rvt_update_sge}: moves the cursor {@code n} bytes; when the current entry is used up, drops its
     * reference if {@code release} and loads the next entry.
     *
     * @param n bytes consumed, at most {@code sge().lengthFor(...)}
     * @param release whether to drop the reference of an entry that is used up
     */
    public void updateSge(int n, boolean release) {
        if (n < sge.sgeLength()) {
            sge.advance(n);
            return;
        }
        // The entry is used up: the next one, when there is one, overwrites every field, so the cursor is not moved.
        if (release && !borrowed && sge.mr() != null) {
            sge.mr().release();
        }
        if (--numSge > 0) {
            sge.copyFrom(sgList[sgNext++]);
        } else {
            sge.advance(n);
        }
    }

    private void release(Sge usedUp, boolean release) {
        if (release && !borrowed && usedUp.mr() != null) {
            usedUp.mr().release();
        }
    }

    /**
     * Mirrors {@code rvt_skip_sge}: moves the cursor {@code len} bytes without copying.
     *
     * @param len bytes to skip
     * @param release whether to drop the references of entries used up
     */
    public void skipSge(int len, boolean release) {
        while (len > 0 && numSge > 0) {
            int n = sge.lengthFor(len);
            if (n == 0) {
                break;
            }
            updateSge(n, release);
            len -= n;
        }
    }

    /**
     * Mirrors {@code rvt_put_ss}: drops the references of the current and every remaining entry and empties the
     * state.
     */
    public void putSs() {
        while (numSge > 0) {
            if (!borrowed && sge.mr() != null) {
                sge.mr().release();
            }
            if (--numSge > 0) {
                sge.copyFrom(sgList[sgNext++]);
            }
        }
        clear();
    }

    /**
     * Marks the entries the state was just set up with as holding no region reference: they were validated with the
     * QP's {@code recvLock} held and are used up, or {@link #pin pinned}, before it is released. While that lock is
     * held a {@code deregMr} of their region cannot finish (its {@code rvt_qp_mr_clean} takes the QP's locks), so
     * the region stays as valid as a reference would keep it; nothing is released as they are used up or put. An
     * rvt extension (rdmavt takes and drops a reference per SGE): two atomic operations fewer per message received.
     */
    public void borrow() {
        borrowed = true;
    }

    /** @return true while the entries hold no region reference ({@link #borrow}) */
    public boolean isBorrowed() {
        return borrowed;
    }

    /**
     * Takes a region reference for the current and every remaining entry of a {@link #borrow borrowed} state, which
     * then outlives the lock that kept its regions valid (a message not finished in the packet that began it); a
     * state that holds its references already is left as it is.
     */
    public void pin() {
        if (!borrowed) {
            return;
        }
        borrowed = false;
        if (numSge == 0) {
            return;
        }
        if (sge.mr() != null) {
            sge.mr().retain();
        }
        for (int i = 0; i < numSge - 1; i++) {
            Sge s = sgList[sgNext + i];
            if (s.mr() != null) {
                s.mr().retain();
            }
        }
    }

    /**
     * Mirrors {@code rvt_restart_sge}: points the state at the start of {@code wqe}'s entries and skips {@code len}
     * bytes (no references dropped); used to resend from the middle of a message.
     *
     * @param wqe the send WQE
     * @param len bytes already sent
     * @return bytes left to send, {@code wqe.length() - len}
     */
    public int restart(SendWqe wqe, int len) {
        init(wqe.sgList(), 0, wqe.numSge(), wqe.length());
        skipSge(len, false);
        return wqe.length() - len;
    }

    /**
     * Mirrors {@code rvt_ss_has_lkey}: whether the current or a remaining entry uses the region with {@code lkey}.
     *
     * @param lkey a local key
     * @return true if referenced
     */
    public boolean hasLkey(int lkey) {
        if (numSge == 0) {
            return false;
        }
        if (sge.mr() != null && sge.mr().lkey() == lkey) {
            return true;
        }
        for (int i = 0; i < numSge - 1; i++) {
            Sge s = sgList[sgNext + i];
            if (s.mr() != null && s.mr().lkey() == lkey) {
                return true;
            }
        }
        return false;
    }

    /**
     * Mirrors {@code rvt_copy_sge}: copies {@code length} bytes from {@code src} (absolute index {@code srcIndex})
     * into the entries, advancing the cursor.
     *
     * <p>With {@code copyLast} (RDMA WRITE into a user QP's memory) the last 8 bytes are written after the rest, after
     * a release fence and one byte at a time in order, so that a poller watching the end of a buffer never sees it
     * before the body.
     *
     * @param src the source bytes
     * @param srcIndex index of the first source byte
     * @param length bytes to copy; must not exceed the bytes the entries describe
     * @param release whether to drop the references of entries used up
     * @param copyLast write the final 8 bytes last
     */
    public void copyIn(ByteBuffer src, int srcIndex, int length, boolean release, boolean copyLast) {
        boolean inLast = false;
        if (copyLast) {
            if (length > 8) {
                length -= 8;
            } else {
                copyLast = false;
                inLast = true;
            }
        }
        while (true) {
            while (length > 0) {
                int n = sge.lengthFor(length);
                if (n <= 0) {
                    throw new IllegalStateException("copy of " + length + " bytes overruns the scatter list");
                }
                ByteBuffer dst = sge.memory();
                int at = sge.offset();
                if (inLast) {
                    VarHandle.releaseFence();
                    for (int i = 0; i < n; i++) {
                        dst.put(at + i, src.get(srcIndex + i));
                    }
                } else {
                    dst.put(at, src, srcIndex, n);
                }
                updateSge(n, release);
                srcIndex += n;
                length -= n;
            }
            if (!copyLast) {
                return;
            }
            copyLast = false;
            inLast = true;
            length = 8;
        }
    }

    /**
     * Gathers {@code length} bytes from the entries into {@code dst} at absolute index {@code dstIndex}, advancing
     * the cursor (how a driver fills a packet's payload).
     *
     * @param dst the destination
     * @param dstIndex index of the first destination byte
     * @param length bytes to copy; must not exceed the bytes the entries describe
     * @param release whether to drop the references of entries used up
     */
    public void copyOut(ByteBuffer dst, int dstIndex, int length, boolean release) {
        while (length > 0) {
            int n = sge.lengthFor(length);
            if (n <= 0) {
                throw new IllegalStateException("copy of " + length + " bytes overruns the gather list");
            }
            dst.put(dstIndex, sge.memory(), sge.offset(), n);
            dstIndex += n;
            length -= n;
            if (n < sge.sgeLength() || length == 0 || numSge < 2) {
                updateSge(n, release);
                continue;
            }
            // The entry is used up with more to gather: the next entries that lie whole in one buffer and are
            // wanted whole are read where they are in the list, and only the one the gather goes on in becomes the
            // cursor (one copy of an entry instead of one per entry).
            release(sge, release);
            numSge--;
            Sge e = sgList[sgNext];
            while (numSge > 1 && e.sgeLength() > 0 && e.sgeLength() <= length && e.sgeLength() <= e.length()) {
                int whole = e.sgeLength();
                dst.put(dstIndex, e.memory(), e.offset(), whole);
                dstIndex += whole;
                length -= whole;
                release(e, release);
                numSge--;
                e = sgList[++sgNext];
            }
            sge.copyFrom(e);
            sgNext++;
        }
    }

    /**
     * Copies {@code length} bytes from {@code src}'s entries into this state's entries, advancing both (software
     * loopback). References of used-up source entries are dropped if {@code releaseSrc}, of destination entries if
     * {@code releaseDst}.
     *
     * @param src the source cursor
     * @param length bytes to move
     * @param releaseDst drop destination references as entries are used up
     * @param releaseSrc drop source references as entries are used up
     * @param copyLast write the final 8 bytes of each chunk last (see {@link #copyIn}), as rdmavt's loopback does
     */
    public void copyFrom(SgeState src, int length, boolean releaseDst, boolean releaseSrc, boolean copyLast) {
        while (length > 0) {
            Sge s = src.sge();
            int n = s.lengthFor(length);
            if (n <= 0) {
                throw new IllegalStateException("copy of " + length + " bytes overruns the source list");
            }
            copyIn(s.memory(), s.offset(), n, releaseDst, copyLast);
            src.updateSge(n, releaseSrc);
            length -= n;
        }
    }
}
