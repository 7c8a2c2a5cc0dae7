package io.rvt.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A memory window ({@code struct ibv_mw}; kernel: {@code struct ib_mw}; rxe: {@code struct rxe_mw}): a remote key
 * that grants remote access to a range of a {@link MemoryRegion} registered with {@link AccessFlag#MW_BIND}, with
 * access rights of its own. rdmavt has no windows; rvt follows rxe ({@code rxe_mw.c}), see docs/api.md.
 *
 * <p>A new window grants nothing. A {@link MwType#TYPE_1} window is bound by {@link QueuePair#bindMw}, which gives
 * it a new {@link #rkey()}; a {@link MwType#TYPE_2} window by a {@link WrOpcode#BIND_MW} work request carrying the
 * new rkey, and is invalidated by {@link WrOpcode#LOCAL_INV} or a peer's {@link WrOpcode#SEND_WITH_INV}. The rkey
 * shares the key space of the device's regions: the upper 24 bits name the window, the low 8 bits (the key part)
 * change with each bind. Every method may be called from any thread.
 */
@ProviderType
public interface MemoryWindow {
    /** @return the PD the window was allocated in */
    ProtectionDomain pd();

    /** @return the window's type */
    MwType type();

    /**
     * @return the current remote key ({@code ibv_mw.rkey}): for type 1 changed by each {@link QueuePair#bindMw}, for
     *         type 2 set by each successful {@link WrOpcode#BIND_MW}
     */
    int rkey();

    /** @return true while the window is bound to a non-empty range (it grants remote access) */
    boolean isBound();

    /**
     * Deallocates the window ({@code ibv_dealloc_mw}; rxe: {@code rxe_dealloc_mw}). A bound window is unbound first,
     * as rxe does: its rkey stops working at once and the region it was bound to may be deregistered.
     *
     * @throws VerbsException EINVAL if the window was already deallocated
     */
    void deallocMw();
}
