package io.rvt.api.spi.agent;

/**
 * Thrown by {@link Agent#doWork()} to end its own duty cycle for good (Agrona's {@code AgentTerminationException}):
 * an {@link AgentRunner} stops its loop and calls {@link Agent#onClose()}, an {@link AgentInvoker} closes, a
 * {@link ProgressEngine} stops running the agent. It is not counted as an error.
 */
public class AgentTerminationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message why the agent ends
     */
    public AgentTerminationException(String message) {
        super(message);
    }
}
