package io.rvt.api.spi.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class AgentInvokerTest {
    /** Counts its lifecycle calls; doWork returns its call count, or fails when told to. */
    private static final class Counting implements Agent {
        int starts;
        int works;
        int closes;
        boolean fail;

        @Override
        public void onStart() {
            starts++;
        }

        @Override
        public int doWork() throws Exception {
            if (fail) {
                throw new IOException("disk on fire");
            }
            return ++works;
        }

        @Override
        public void onClose() {
            closes++;
        }

        @Override
        public String roleName() {
            return "counting";
        }
    }

    @Test
    void shouldRunTheAgentsLifecycleOnTheCallersThreadOnce() {
        Counting agent = new Counting();
        AgentInvoker invoker = new AgentInvoker(agent);
        invoker.start();
        invoker.start();
        assertThat(invoker.invoke()).isEqualTo(1);
        assertThat(invoker.invoke()).isEqualTo(2);
        invoker.close();
        invoker.close();
        assertThat(invoker.invoke()).isZero();
        assertThat(agent.starts).isEqualTo(1);
        assertThat(agent.works).isEqualTo(2);
        assertThat(agent.closes).isEqualTo(1);
    }

    @Test
    void shouldNameTheAgentWhenItFails() {
        Counting agent = new Counting();
        agent.fail = true;
        AgentInvoker invoker = new AgentInvoker(agent);
        assertThatThrownBy(invoker::invoke).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("counting").hasMessageContaining("disk on fire")
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void shouldNotCloseAnAgentThatNeverStarted() {
        Counting agent = new Counting();
        new AgentInvoker(agent).close();
        assertThat(agent.closes).isZero();
    }
}
