package io.rvt.transport;

/**
 * rvt extension: how a {@link PacketDriver}'s engine holds a QP's locks around the driver's own code, the three
 * choices in one object ({@link PacketDriver#lockPolicy()}). rdmavt has no counterpart: its drivers take
 * {@code s_lock} and {@code r_lock} per packet in their own send and receive loops. The policy is asked once, at the
 * first drain or receive, so a driver decides it when it is built.
 *
 * <p>A driver may hold a lock over its own code only if that code, around the transport's, neither blocks nor waits
 * for another thread nor takes a lock that a holder of a QP lock might wait for (it fills, queues, parses, counts and
 * releases frames); a thread that wants the lock meanwhile ({@code modify_qp}, {@code destroy_qp}, a timer) then
 * waits at most for the run or train to end, as it would for one packet.
 *
 * @param sendLockOverDrains a drain takes the QP's {@code sendLock} once for up to 32 of its packets instead of once
 *        per packet (the transport's lock in {@code makePacket} is then a re-entry): one atomic per train of packets.
 *        Where the transport must take {@code recvLock} from the send path it lets go of the drain's hold first
 *        ({@link QpSendEngine#letGoOfSendLock(io.rvt.api.spi.DriverQp)}), as {@code recvLock} ranks above
 *        {@code sendLock}
 * @param recvLockOverRuns {@link PacketDriver#receive} keeps an RC QP's {@code recvLock} from the first packet of a
 *        run of a batch's packets to that QP until the run ends (a packet for another QP, the deferred drains,
 *        a multicast packet or the batch's end), so that the run's packets take it once; each packet is still
 *        processed as if it came alone
 * @param schedulesDeferred the drains a receiving thread deferred to the end of its batch are handed to
 *        {@link PacketDriver#schedule} (a deterministic driver that keeps its event order) instead of run on that
 *        thread, with no QP lock held, right after the batch
 */
public record LockPolicy(boolean sendLockOverDrains, boolean recvLockOverRuns, boolean schedulesDeferred) {
    /** Each packet takes the QP's locks on its own; deferred drains run on the receiving thread. The default. */
    public static final LockPolicy PER_PACKET = new LockPolicy(false, false, false);

    /**
     * @param hold whether a drain holds {@code sendLock} over its packets
     * @return this policy with {@link #sendLockOverDrains()} as given
     */
    public LockPolicy withSendLockOverDrains(boolean hold) {
        return new LockPolicy(hold, recvLockOverRuns, schedulesDeferred);
    }

    /**
     * @param hold whether a receive batch holds an RC QP's {@code recvLock} over a run of its packets
     * @return this policy with {@link #recvLockOverRuns()} as given
     */
    public LockPolicy withRecvLockOverRuns(boolean hold) {
        return new LockPolicy(sendLockOverDrains, hold, schedulesDeferred);
    }

    /**
     * @param schedule whether deferred drains are scheduled instead of run on the receiving thread
     * @return this policy with {@link #schedulesDeferred()} as given
     */
    public LockPolicy withSchedulesDeferred(boolean schedule) {
        return new LockPolicy(sendLockOverDrains, recvLockOverRuns, schedule);
    }
}
