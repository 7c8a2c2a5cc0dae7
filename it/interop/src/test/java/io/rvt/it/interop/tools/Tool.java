package io.rvt.it.interop.tools;

import java.util.Map;

/**
 * One rvt counterpart of a Linux RDMA tool: speaks what the tool speaks on the wire (its connection setup, its
 * messages, their sizes and order) on rvt's public API, and checks every byte it can know.
 */
interface Tool {
    /** @return the Linux tool's name */
    String name();

    /** @return the tool's short options, {@code getopt} style */
    String options();

    /**
     * @param args the parsed command line
     * @return {@code server} or {@code client}, as the options make it
     */
    String role(ToolArgs args);

    /**
     * Refuses, before any HCA or QP exists, an option of the Linux tool that rvt does not offer (the tool's own
     * checks of its values stay in {@link #run}).
     *
     * @param args the parsed command line
     * @throws IllegalArgumentException with a one-line reason naming the option and its value
     */
    default void check(ToolArgs args) {
    }

    /**
     * Runs the tool to its end.
     *
     * @param ctx the HCA, rvt's options and the deadline
     * @param args the parsed command line
     * @return what the run did, for the result line (messages, bytes checked)
     * @throws ToolFailure if a message did not arrive or arrived wrong, or the peer failed it
     * @throws Exception on any other error (the result line says which)
     */
    Map<String, String> run(ToolContext ctx, ToolArgs args) throws Exception;
}
