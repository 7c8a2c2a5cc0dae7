package io.rvt.it.interop.tools;

/** Why a tool's run failed: a message that names what was expected and what came (a wrong byte, a bad status). */
class ToolFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong
     */
    ToolFailure(String message) {
        super(message);
    }

    /**
     * @param message what went wrong
     * @param cause the error behind it
     */
    ToolFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
