package io.rvt.api.spi.agent;

/**
 * Which threads run an engine (Aeron's {@code ThreadingMode}, with rvt's progress mode added). One value decides it
 * for every piece of a driver: a simulated fabric and its HCAs' send engines, driver-jni's port engines.
 *
 * <p>rvt's one threading vocabulary is these names in lower case, {@code progress}, {@code dedicated} and
 * {@code invoker}, and Aeron's {@code shared}, which is a driver's arrangement rather than an engine's mode: its
 * engines are built {@link #INVOKER} and one {@link AgentRunner} runs them together as a {@link CompositeAgent}.
 * driver-sim's and driver-jni's Config Admin property {@code threading} and the {@code rvt} command's
 * {@code --threading} use the same words.
 */
public enum ThreadingMode {
    /**
     * Only the caller: the application's polls (through the progress hook) or an {@link AgentInvoker}. No thread is
     * started; nothing moves while no one calls.
     */
    INVOKER,
    /** Only a thread of the engine's own, which runs it all the time with its idle strategy; the hook does nothing. */
    DEDICATED,
    /**
     * rvt extension, the default: the application's polls run the engine (the progress hook, at most one thread at a
     * time), and a backstop thread runs it only when no application thread has for a while (timers,
     * retransmissions, applications that wait on completion events), parking otherwise.
     */
    PROGRESS
}
