package io.rvt.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rvt shell} (Gogo on JLine) wherever its commands come from: a pipe, which it reads to the end and then exits,
 * and a terminal of any size, one that reports no width included. JLine 3.21 spun in its line display on a width of 0,
 * which is what a pipe's dumb terminal has, so the shell never read a command (issue 27); 3.26.3 takes a width of 0 as
 * unlimited.
 */
class ShellTest {
    @Test
    @Timeout(180)
    void shouldRunThePipedCommandsAndExitAtTheirEnd() throws Exception {
        try (RvtProcess shell = RvtProcess.startWithInput("shell", "shell")) {
            shell.type("rvt:devices\n");
            shell.endInput();
            assertThat(shell.exitCode()).as(shell.out() + shell.stderr()).isZero();
            assertThat(shell.out()).contains("sim0 ", "sim1 ");
            assertThat(shell.stderr()).doesNotContain("Unable to create a system terminal");
        }
    }

    @Test
    @Timeout(180)
    void shouldRunCommandsOnATerminalThatReportsNoWidth() throws Exception {
        try (RvtProcess shell = RvtProcess.startOnTerminal("shell", 0, 0, "shell")) {
            shell.awaitLine("Welcome to Apache Felix Gogo");
            shell.type("rvt:devices\r");
            shell.awaitLine("sim1 ");
            shell.type("exit 0\r");
            assertThat(shell.exitCode()).as(shell.out() + shell.stderr()).isZero();
        }
    }
}
