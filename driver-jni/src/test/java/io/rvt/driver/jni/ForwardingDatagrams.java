package io.rvt.driver.jni;

import java.net.InetAddress;

/** A socket decorator's base: every call goes to the socket decorated; a decorator overrides what it changes. */
abstract class ForwardingDatagrams implements Datagrams {
    /** The socket decorated. */
    protected final Datagrams real;

    ForwardingDatagrams(Datagrams real) {
        this.real = real;
    }

    @Override
    public int send(TxBatch batch) {
        return real.send(batch);
    }

    @Override
    public int receive(RxBatch batch) {
        return real.receive(batch);
    }

    @Override
    public void await(int timeoutMillis) {
        real.await(timeoutMillis);
    }

    @Override
    public InetAddress localAddress() {
        return real.localAddress();
    }

    @Override
    public int localPort() {
        return real.localPort();
    }

    @Override
    public void wakeup() {
        real.wakeup();
    }

    @Override
    public long kernelDrops() {
        return real.kernelDrops();
    }

    @Override
    public int bufferBytes(boolean send) {
        return real.bufferBytes(send);
    }

    @Override
    public void receiveIpInfo(boolean on) {
        real.receiveIpInfo(on);
    }

    @Override
    public boolean receiveCoalesced() {
        return real.receiveCoalesced();
    }

    @Override
    public boolean receivesIpInfo() {
        return real.receivesIpInfo();
    }

    @Override
    public int lastErrno() {
        return real.lastErrno();
    }

    @Override
    public void close() {
        real.close();
    }
}
