/*
 * udploop: the kernel's floor for what driver-jni does per message, in plain C. Small UDP datagrams stream over
 * loopback between two sockets of one process: a sender hands them to the kernel in sendmmsg batches and a receiver
 * busy-polls recvmmsg (MSG_DONTWAIT), as driver-jni's poller does. Prints the datagrams per second received.
 * By default a thread each; with -1 one thread does both in turn, as driver-jni's progress hook has the polling
 * thread do (on loopback the kernel delivers inside sendmmsg, so nothing then crosses cores).
 *
 *   udploop [-1] [-6] [-g] [-G] [-s bytes] [-b batch] [-t seconds] [-w window] [-a] [-n] [-c] [-B socket-buffer-bytes] [-q]
 *
 *   -1  one thread sends a batch, then receives what is waiting (default: a sending and a receiving thread)
 *   -6  IPv6: the sockets are bound to ::1 (default: IPv4, 127.0.0.1)
 *   -g  UDP GSO: the sender hands each batch to the kernel as ONE sendmsg whose payload is the batch's datagrams back
 *       to back, with a UDP_SEGMENT control message of the datagram size: the kernel builds one large datagram and
 *       cuts it into the batch's datagrams at the receiver (loopback) or the device, each with its own UDP/IP header
 *   -G  UDP GRO: the receiver sets the UDP_GRO socket option, so a GSO datagram stays whole up to recvmmsg, which
 *       returns the coalesced payload with a UDP_GRO control message giving the segment size (counted as
 *       ceil(length / segment size) datagrams; with -a acknowledged by that count)
 *
 *   -s  UDP payload per datagram (default 64; driver-jni's 64 B RC SEND is 80: BTH 12 + 64 + ICRC 4)
 *   -b  datagrams per sendmmsg and per recvmmsg (default 32, driver-jni's default batch; at most 64)
 *   -t  measured seconds (default 5), after a warm-up of a quarter of that (at most 1 s)
 *   -w  most datagrams sent but not yet received (default 0: unpaced, like iperf3 -b 0). Without -a the sender
 *       reads the receiver's count from memory; with -a it learns it from acknowledgements on the wire.
 *   -a  RC-shaped: the receiver answers each recvmmsg batch with one 8-byte datagram carrying its running count
 *       (as an RC responder coalesces ACKs), which the sender reads with recvmmsg; needs -w
 *   -n  the receiver asks each datagram's source address (msg_name), as driver-jni must (its RC address check)
 *   -c  the receiver asks each datagram's TOS and TTL as control messages (IP_RECVTOS, IP_RECVTTL; with -6
 *       IPV6_RECVTCLASS, IPV6_RECVHOPLIMIT), as driver-jni does while its HCA has a UD QP (on every receive before
 *       2026-12-01)
 *   -B  SO_RCVBUF/SO_SNDBUF (the FORCE variants first, as driver-jni does; default 4 MiB, driver-jni's default)
 *   -q  one line only: the machine-readable result
 *   -P  ping-pong, the kernel's blocking round trip: a thread sends one datagram of -s bytes and blocks in recv for
 *       the answer, the other blocks in recv and answers each (a thread each, as two processes' would); rate is round
 *       trips per second, cpu_ns_per_msg the CPU per round trip (both threads); -b, -w, -a, -g, -G do not apply
 *
 * Result line: "udploop threads=2 size=64 batch=32 window=0 acks=0 names=0 cmsgs=0 family=4 gso=0 gro=0 secs=5.00 sent=N received=N lost=N rate=X
 * cpu_ns_per_msg=Y": rate the received datagrams per second, Y the process's CPU time (user + system, every thread)
 * per received datagram, which a machine shared with other work inflates far less than the rate. Exit status 0, or 2 for bad arguments, 1 for a failing system call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 64
#define MAX_SIZE 9000
/* A receive slot: with -G one GSO datagram, up to the largest UDP payload. */
#define SLOT_SIZE 65536

/* From linux/udp.h, which older glibc's netinet/udp.h lacks. */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

struct config {
    int size;
    int batch;
    double secs;
    long window;
    int acks;
    int buf;
    int quiet;
    int one_thread;
    int names;
    int cmsgs;
    int ipv6;
    int gso;
    int gro;
    int pingpong;
};

static struct config cfg = {64, 32, 5.0, 0, 0, 4 << 20, 0, 0, 0, 0, 0, 0, 0, 0};
static int data_fd;   /* the receiver's socket: datagrams arrive here */
static int ack_fd;    /* the sender's socket: datagrams leave from here, acknowledgements arrive here */
static struct sockaddr_storage data_addr;
static struct sockaddr_storage ack_addr;
static socklen_t addr_len; /* of either address: sockaddr_in or sockaddr_in6 */
static atomic_int stop;
static atomic_long sent;
static atomic_long received;
static atomic_long stalls;

static void die(const char *what)
{
    fprintf(stderr, "udploop: %s: %s\n", what, strerror(errno));
    exit(1);
}

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static int open_socket(struct sockaddr_storage *bound)
{
    /* -P blocks in recv; every other mode polls */
    int fd = socket(cfg.ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | (cfg.pingpong ? 0 : SOCK_NONBLOCK) | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        die("socket");
    }
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &cfg.buf, sizeof cfg.buf) != 0) {
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cfg.buf, sizeof cfg.buf);
    }
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &cfg.buf, sizeof cfg.buf) != 0) {
        (void) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.buf, sizeof cfg.buf);
    }
    memset(bound, 0, sizeof *bound);
    if (cfg.ipv6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *) bound;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        addr_len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *) bound;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr_len = sizeof *a;
    }
    if (bind(fd, (struct sockaddr *) bound, addr_len) != 0) {
        die(cfg.ipv6 ? "bind [::1]:0" : "bind 127.0.0.1:0");
    }
    socklen_t len = sizeof *bound;
    if (getsockname(fd, (struct sockaddr *) bound, &len) != 0) {
        die("getsockname");
    }
    return fd;
}

/* Reads every acknowledgement waiting; returns the highest count they carry (or `acked` if none). */
static long read_acks(long acked)
{
    struct mmsghdr m[MAX_BATCH];
    struct iovec iov[MAX_BATCH];
    int64_t v[MAX_BATCH];
    for (;;) {
        memset(m, 0, sizeof m);
        for (int i = 0; i < MAX_BATCH; i++) {
            iov[i].iov_base = &v[i];
            iov[i].iov_len = sizeof v[i];
            m[i].msg_hdr.msg_iov = &iov[i];
            m[i].msg_hdr.msg_iovlen = 1;
        }
        int r = recvmmsg(ack_fd, m, MAX_BATCH, MSG_DONTWAIT, NULL);
        if (r <= 0) {
            return acked;
        }
        for (int i = 0; i < r; i++) {
            if (m[i].msg_len == sizeof v[i] && v[i] > acked) {
                acked = v[i];
            }
        }
        if (r < MAX_BATCH) {
            return acked; /* fewer than asked: none left (a call more would find nothing) */
        }
    }
}

/* The sending side: its batch of datagrams, what it has sent and what it knows was received. */
struct tx {
    struct mmsghdr m[MAX_BATCH];
    struct iovec iov[MAX_BATCH];
    struct msghdr gso;  /* -g: the batch as one message, its iov the first n of iov */
    uint8_t gso_control[CMSG_SPACE(sizeof(uint16_t))] __attribute__((aligned(8)));
    long out;
    long acked;
    double waiting_since;
};

/* The receiving side: its slots and its count, and the acknowledgement it sends. */
struct rx {
    struct mmsghdr m[MAX_BATCH];
    struct iovec iov[MAX_BATCH];
    long got;
    int64_t count;
    struct iovec ack_iov;
    struct msghdr ack;
    struct sockaddr_storage from[MAX_BATCH];
    uint8_t control[MAX_BATCH][64] __attribute__((aligned(8)));
};

static uint8_t payload[MAX_BATCH][MAX_SIZE];
static uint8_t slots[MAX_BATCH][SLOT_SIZE];

static void tx_init(struct tx *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < cfg.batch; i++) {
        t->iov[i].iov_base = payload[i];
        t->iov[i].iov_len = (size_t) cfg.size;
        t->m[i].msg_hdr.msg_name = &data_addr;
        t->m[i].msg_hdr.msg_namelen = addr_len;
        t->m[i].msg_hdr.msg_iov = &t->iov[i];
        t->m[i].msg_hdr.msg_iovlen = 1;
    }
    t->gso.msg_name = &data_addr;
    t->gso.msg_namelen = addr_len;
    t->gso.msg_iov = t->iov;
    t->gso.msg_control = t->gso_control;
    t->gso.msg_controllen = sizeof t->gso_control;
    struct cmsghdr *c = CMSG_FIRSTHDR(&t->gso);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    uint16_t segment = (uint16_t) cfg.size;
    memcpy(CMSG_DATA(c), &segment, sizeof segment);
}

static void rx_init(struct rx *r)
{
    memset(r, 0, sizeof *r);
    r->ack_iov.iov_base = &r->count;
    r->ack_iov.iov_len = sizeof r->count;
    r->ack.msg_name = &ack_addr;
    r->ack.msg_namelen = addr_len;
    r->ack.msg_iov = &r->ack_iov;
    r->ack.msg_iovlen = 1;
}

/* Sends one batch, or less or nothing if the window is (nearly) full; returns how many datagrams left. */
static int tx_step(struct tx *t)
{
    int n = cfg.batch;
    if (cfg.window > 0) {
        t->acked = cfg.acks ? read_acks(t->acked) : atomic_load_explicit(&received, memory_order_acquire);
        long room = cfg.window - (t->out - t->acked);
        if (room < n) {
            if (room <= 0 || room < n / 2) {
                /* A datagram lost on loopback would stall the window for good: give it up after 1 s (not less: on
                 * a loaded machine the receiver may simply not have run). */
                double now_s = now();
                if (t->waiting_since == 0) {
                    t->waiting_since = now_s;
                } else if (now_s - t->waiting_since > 1.0) {
                    atomic_fetch_add(&stalls, 1);
                    t->out = t->acked;
                    t->waiting_since = 0;
                }
                return 0;
            }
            n = (int) room;
        }
        t->waiting_since = 0;
    }
    int r;
    if (cfg.gso && n > 1) {
        /* one message of n datagrams: all sent or none */
        t->gso.msg_iovlen = (size_t) n;
        r = sendmsg(ack_fd, &t->gso, 0) > 0 ? n : -1;
    } else {
        r = sendmmsg(ack_fd, t->m, (unsigned) n, 0);
    }
    if (r > 0) {
        t->out += r;
        atomic_store_explicit(&sent, t->out, memory_order_relaxed);
        return r;
    }
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ENOBUFS) {
        die(cfg.gso ? "sendmsg UDP_SEGMENT" : "sendmmsg");
    }
    return 0;
}

/* Receives one batch (what is waiting, up to the batch size) and acknowledges it with -a; returns its size. */
/* -G: the datagrams r received messages carry, each split by its UDP_GRO segment size (none: one datagram). */
static int gro_datagrams(struct mmsghdr *m, int r)
{
    int n = 0;
    for (int i = 0; i < r; i++) {
        int segment = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m[i].msg_hdr); c != NULL; c = CMSG_NXTHDR(&m[i].msg_hdr, c)) {
            if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                memcpy(&segment, CMSG_DATA(c), sizeof segment);
            }
        }
        n += segment > 0 ? (int) ((m[i].msg_len + (unsigned) segment - 1) / (unsigned) segment) : 1;
    }
    return n;
}

static int rx_step(struct rx *x)
{
    memset(x->m, 0, sizeof x->m[0] * (size_t) cfg.batch);
    for (int i = 0; i < cfg.batch; i++) {
        x->iov[i].iov_base = slots[i];
        x->iov[i].iov_len = sizeof slots[i];
        x->m[i].msg_hdr.msg_iov = &x->iov[i];
        x->m[i].msg_hdr.msg_iovlen = 1;
        if (cfg.names) {
            x->m[i].msg_hdr.msg_name = &x->from[i];
            x->m[i].msg_hdr.msg_namelen = sizeof x->from[i];
        }
        if (cfg.cmsgs || cfg.gro) {
            x->m[i].msg_hdr.msg_control = x->control[i];
            x->m[i].msg_hdr.msg_controllen = sizeof x->control[i];
        }
    }
    int r = recvmmsg(data_fd, x->m, (unsigned) cfg.batch, MSG_DONTWAIT, NULL);
    if (r > 0) {
        int datagrams = cfg.gro ? gro_datagrams(x->m, r) : r;
        x->got += datagrams;
        atomic_store_explicit(&received, x->got, memory_order_release);
        if (cfg.acks) {
            x->count = x->got;
            (void) sendmsg(data_fd, &x->ack, 0);
        }
        return r;
    }
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        die("recvmmsg");
    }
    return 0;
}

static void *sender(void *arg)
{
    (void) arg;
    struct tx t;
    tx_init(&t);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        tx_step(&t);
    }
    return NULL;
}

static void *receiver(void *arg)
{
    (void) arg;
    struct rx x;
    rx_init(&x);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        rx_step(&x);
    }
    return NULL;
}

/* -1: one thread sends a batch, then receives what arrived (and, with -a, reads the acknowledgement). */
static void *both(void *arg)
{
    (void) arg;
    struct tx t;
    struct rx x;
    tx_init(&t);
    rx_init(&x);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        tx_step(&t);
        while (rx_step(&x) == cfg.batch) {
            /* more may be waiting */
        }
    }
    return NULL;
}

/* -P, the pinging thread: one datagram out, block until its answer, count the round trip. */
static void *pinger(void *arg)
{
    (void) arg;
    uint8_t buf[MAX_SIZE];
    memset(buf, 0x5a, sizeof buf);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (sendto(ack_fd, buf, (size_t) cfg.size, 0, (struct sockaddr *) &data_addr, addr_len) < 0) {
            die("sendto");
        }
        atomic_fetch_add_explicit(&sent, 1, memory_order_relaxed);
        ssize_t r;
        while ((r = recv(ack_fd, buf, sizeof buf, 0)) < 0 && (errno == EAGAIN || errno == EINTR)
               && !atomic_load_explicit(&stop, memory_order_relaxed)) {
            /* the receive timeout: look at stop again */
        }
        if (r > 0) {
            atomic_fetch_add_explicit(&received, 1, memory_order_relaxed);
        }
    }
    return NULL;
}

/* -P, the answering thread: block until a datagram arrives, send it back. */
static void *ponger(void *arg)
{
    (void) arg;
    uint8_t buf[MAX_SIZE];
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        ssize_t r = recv(data_fd, buf, sizeof buf, 0);
        if (r > 0 && sendto(data_fd, buf, (size_t) r, 0, (struct sockaddr *) &ack_addr, addr_len) < 0) {
            die("sendto");
        }
    }
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: udploop [-1] [-6] [-g] [-G] [-s bytes] [-b batch 1..%d] [-t seconds] [-w window] [-a] [-n] [-c] [-B bytes] [-q] [-P]\n",
            MAX_BATCH);
    exit(2);
}

int main(int argc, char **argv)
{
    int c;
    while ((c = getopt(argc, argv, "s:b:t:w:anB:cq16gGP")) != -1) {
        char *end = NULL;
        switch (c) {
        case 's': cfg.size = (int) strtol(optarg, &end, 10); break;
        case 'b': cfg.batch = (int) strtol(optarg, &end, 10); break;
        case 't': cfg.secs = strtod(optarg, &end); break;
        case 'w': cfg.window = strtol(optarg, &end, 10); break;
        case 'a': cfg.acks = 1; break;
        case 'n': cfg.names = 1; break;
        case 'c': cfg.cmsgs = 1; break;
        case 'B': cfg.buf = (int) strtol(optarg, &end, 10); break;
        case 'q': cfg.quiet = 1; break;
        case '1': cfg.one_thread = 1; break;
        case '6': cfg.ipv6 = 1; break;
        case 'g': cfg.gso = 1; break;
        case 'G': cfg.gro = 1; break;
        case 'P': cfg.pingpong = 1; break;
        default: usage();
        }
        if (end != NULL && (*end != '\0' || end == optarg)) {
            fprintf(stderr, "udploop: -%c: '%s' is not a number\n", c, optarg);
            usage();
        }
    }
    if (optind != argc || cfg.size < 8 || cfg.size > MAX_SIZE || cfg.batch < 1 || cfg.batch > MAX_BATCH
        || cfg.secs <= 0 || cfg.window < 0 || cfg.buf < 0 || (cfg.acks && cfg.window == 0)) {
        fprintf(stderr, "udploop: need -s 8..9000, -b 1..%d, -t > 0, -w >= 0 (and > 0 with -a), -B >= 0\n",
                MAX_BATCH);
        usage();
    }
    if (cfg.gso && cfg.size * cfg.batch > 65000) {
        fprintf(stderr, "udploop: -g needs -s times -b at most 65000 (one UDP datagram), got %d\n",
                cfg.size * cfg.batch);
        usage();
    }
    data_fd = open_socket(&data_addr);
    int one = 1;
    if (cfg.cmsgs && !cfg.ipv6
        && (setsockopt(data_fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof one) != 0
            || setsockopt(data_fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof one) != 0)) {
        die("setsockopt IP_RECVTOS/IP_RECVTTL");
    }
    if (cfg.cmsgs && cfg.ipv6
        && (setsockopt(data_fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof one) != 0
            || setsockopt(data_fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof one) != 0)) {
        die("setsockopt IPV6_RECVTCLASS/IPV6_RECVHOPLIMIT");
    }
    if (cfg.gro && setsockopt(data_fd, SOL_UDP, UDP_GRO, &one, sizeof one) != 0) {
        die("setsockopt UDP_GRO");
    }
    ack_fd = open_socket(&ack_addr);
    int rcvbuf = 0;
    socklen_t len = sizeof rcvbuf;
    (void) getsockopt(data_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len);
    pthread_t rt;
    pthread_t st;
    if (cfg.pingpong) {
        /* blocking receives that give up every 100 ms, so that both threads see stop */
        struct timeval tv = {0, 100000};
        if (setsockopt(data_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0
            || setsockopt(ack_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
            die("setsockopt SO_RCVTIMEO");
        }
        cfg.one_thread = 0;
        if (pthread_create(&rt, NULL, ponger, NULL) != 0 || pthread_create(&st, NULL, pinger, NULL) != 0) {
            die("pthread_create");
        }
    } else if (cfg.one_thread ? pthread_create(&st, NULL, both, NULL) != 0
                       : pthread_create(&rt, NULL, receiver, NULL) != 0 || pthread_create(&st, NULL, sender, NULL) != 0) {
        die("pthread_create");
    }
    double warm = cfg.secs / 4 < 1.0 ? cfg.secs / 4 : 1.0;
    struct timespec w = {(time_t) warm, (long) ((warm - (double) (time_t) warm) * 1e9)};
    nanosleep(&w, NULL);
    double t0 = now();
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    long s0 = atomic_load(&sent);
    long r0 = atomic_load(&received);
    struct timespec m = {(time_t) cfg.secs, (long) ((cfg.secs - (double) (time_t) cfg.secs) * 1e9)};
    nanosleep(&m, NULL);
    double t1 = now();
    double c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    long s1 = atomic_load(&sent);
    long r1 = atomic_load(&received);
    atomic_store(&stop, 1);
    pthread_join(st, NULL);
    if (!cfg.one_thread) {
        pthread_join(rt, NULL);
    }
    double secs = t1 - t0;
    long ns = s1 - s0;
    long nr = r1 - r0;
    double rate = (double) nr / secs;
    if (!cfg.quiet) {
        printf("udploop: %d B datagrams over %s, %s, %s/recvmmsg%s batches of %d, %s, SO_RCVBUF %d B\n",
               cfg.size, cfg.ipv6 ? "::1" : "127.0.0.1", cfg.gso ? "sendmsg UDP_SEGMENT" : "sendmmsg",
               cfg.gro ? " UDP_GRO" : "", cfg.one_thread ? "one thread" : "a thread each", cfg.batch,
               cfg.window == 0 ? "unpaced" : cfg.acks ? "window on acknowledgements" : "window in memory", rcvbuf);
        printf("udploop: %.3f M datagrams/s received (sender %.3f M/s, %.1f %% not received, %ld window stalls)\n",
               rate / 1e6, (double) ns / secs / 1e6, ns > 0 ? 100.0 * (double) (ns - nr) / (double) ns : 0.0,
               atomic_load(&stalls));
    }
    double cpu_ns = nr > 0 ? (c1 - c0) * 1e9 / (double) nr : 0;
    printf("udploop threads=%d pingpong=%d size=%d batch=%d window=%ld acks=%d names=%d cmsgs=%d family=%d gso=%d gro=%d secs=%.2f sent=%ld "
           "received=%ld lost=%ld rate=%.0f cpu_ns_per_msg=%.0f\n", cfg.one_thread ? 1 : 2, cfg.pingpong, cfg.size, cfg.batch,
           cfg.window, cfg.acks, cfg.names, cfg.cmsgs, cfg.ipv6 ? 6 : 4, cfg.gso, cfg.gro, secs, ns, nr, ns > nr ? ns - nr : 0, rate, cpu_ns);
    close(data_fd);
    close(ack_fd);
    return 0;
}
