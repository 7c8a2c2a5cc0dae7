/*
 * librvtjni: the UDP socket layer of rvt's driver-jni. Everything here is called from
 * io.rvt.driver.jni.NativeUdp through natives registered in JNI_OnLoad. Only primitives and the addresses of
 * direct buffers cross; every function returns a value >= 0 or -errno and never throws.
 *
 * Descriptor layouts (shared with NativeUdp/TxBatch/RxBatch; checked at load through rvt_abi_size):
 *   tx (128 bytes): u16 port (host order), u8 family (4 or 6), u8 nseg (segments used), u32 scope_id (IPv6
 *                   link-local destinations: the interface), u8 ip[16] (IPv4 in the first 4 bytes), u32 flow_label
 *                   (IPv6, 20 bits; 0: the kernel's), u8 tclass (IPv4 TOS / IPv6 traffic class), u8 hop_limit
 *                   (IPv4 TTL / IPv6 hop limit; 0: the socket's, RVT_SOCKET_HOP_LIMIT), u16 pad, then
 *                   RVT_TX_SEGS segments of {u64 addr, u64 len} the datagram is gathered from
 *   rx (32 bytes):  u32 len, u32 flags (1: truncated, 2: the IP fields below are the received header's; bits
 *                   16-31: with UDP GRO the segment size of a coalesced datagram, 0 if it is one datagram), u16 port
 *                   (host order), u8 family, u8 tclass, u8 ip[16], u32 flow_label (20 bits) | hop_limit << 24
 */
#define _GNU_SOURCE
#include <jni.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define RVT_ABI_VERSION 9
#define RVT_MAX_BATCH 64
/* Segments per datagram: transport headers, up to four payload slices of registered memory, pad and ICRC. */
#define RVT_TX_SEGS 6

struct rvt_tx_seg {
    uint64_t addr;
    uint64_t len;
};

struct rvt_tx_desc {
    uint16_t port;
    uint8_t family;
    uint8_t nseg;
    uint32_t scope_id;
    uint8_t ip[16];
    uint32_t flow_label;
    uint8_t tclass;
    uint8_t hop_limit;
    uint16_t pad;
    struct rvt_tx_seg seg[RVT_TX_SEGS];
};

struct rvt_rx_desc {
    uint32_t len;
    uint32_t flags;
    uint16_t port;
    uint8_t family;
    uint8_t tclass;
    uint8_t ip[16];
    uint32_t ipinfo;
};

_Static_assert(sizeof(struct rvt_tx_desc) == 128, "tx descriptor layout");
_Static_assert(offsetof(struct rvt_tx_desc, ip) == 8, "tx descriptor layout");
_Static_assert(offsetof(struct rvt_tx_desc, flow_label) == 24, "tx descriptor layout");
_Static_assert(offsetof(struct rvt_tx_desc, tclass) == 28, "tx descriptor layout");
_Static_assert(offsetof(struct rvt_tx_desc, seg) == 32, "tx descriptor layout");
_Static_assert(sizeof(struct rvt_rx_desc) == 32, "rx descriptor layout");
_Static_assert(offsetof(struct rvt_rx_desc, tclass) == 11, "rx descriptor layout");
_Static_assert(offsetof(struct rvt_rx_desc, ip) == 12, "rx descriptor layout");
_Static_assert(offsetof(struct rvt_rx_desc, ipinfo) == 28, "rx descriptor layout");

#define RX_TRUNCATED 1u
#define RX_IPINFO 2u
/* The segment size of a datagram UDP GRO coalesced, in the flags' bits 16-31. */
#define RX_SEGMENT_SHIFT 16

/* From linux/in6.h, which clashes with glibc's netinet/in.h. */
#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33
#endif
#define RVT_FLOWLABEL_MASK 0x000FFFFFu
/* From linux/udp.h (Linux 4.18), which older glibc's netinet/udp.h lacks. */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
/* From linux/udp.h (Linux 5.0): the socket takes coalesced datagrams, each with a UDP_GRO control message. */
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
/* From linux/udp.h (Linux 3.16): IPv6 UDP datagrams with checksum 0 sent (TX) or accepted (RX), RFC 6935/6936. */
#ifndef UDP_NO_CHECK6_TX
#define UDP_NO_CHECK6_TX 101
#endif
#ifndef UDP_NO_CHECK6_RX
#define UDP_NO_CHECK6_RX 102
#endif

/* rvt_send_batch's flags: consecutive IPv6 datagrams of one destination and size may go as one UDP GSO message. */
#define RVT_SEND_GSO 1
/* Its result: descriptors sent in bits 0-7, of which sent as GSO segments in bits 8-15; GSO refused in bit 16. */
#define RVT_SENT_GSO_SHIFT 8
#define RVT_SENT_GSO_REFUSED (1 << 16)
/* The most segments one GSO message carries (the kernel's UDP_MAX_SEGMENTS is 64 before Linux 6.9) and bytes. */
#define RVT_GSO_MAX_SEGS 64
#define RVT_GSO_MAX_BYTES 65000

/*
 * The TTL / hop limit every socket is opened with (the Linux default, and rdma_cm's on RoCEv2): a datagram whose hop
 * limit is this one (or 0) needs no control message, which costs the kernel a few percent of a small datagram's send.
 */
#define RVT_SOCKET_HOP_LIMIT 64

/*
 * Room for the control messages of one datagram: two ints and a UDP_SEGMENT u16 sent; tclass, hop limit, flow info and
 * the UDP_GRO segment size (an int) received.
 */
#define RVT_CMSG_SPACE (CMSG_SPACE(sizeof(int)) * 3 + CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(uint16_t)))

static jint JNICALL rvt_abi_version(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    return RVT_ABI_VERSION;
}

/* 0: tx descriptor, 1: rx descriptor, 2: largest batch, 3: sockaddr_in6 (what an address costs here). */
static jint JNICALL rvt_abi_size(JNIEnv *env, jclass cls, jint what)
{
    (void) env;
    (void) cls;
    switch (what) {
    case 0: return (jint) sizeof(struct rvt_tx_desc);
    case 1: return (jint) sizeof(struct rvt_rx_desc);
    case 2: return RVT_MAX_BATCH;
    case 3: return (jint) sizeof(struct sockaddr_in6);
    case 4: return RVT_TX_SEGS;
    default: return -EINVAL;
    }
}

static jlong JNICALL rvt_address(JNIEnv *env, jclass cls, jobject buffer)
{
    (void) cls;
    void *p = (*env)->GetDirectBufferAddress(env, buffer);
    return p == NULL ? -EINVAL : (jlong) (uintptr_t) p;
}

static void put_be64(uint8_t *out, jlong v)
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t) (v & 0xFF);
        v >>= 8;
    }
}

/*
 * Opens a non-blocking UDP socket bound to the address (IPv4: v4 as a big-endian int; IPv6: hi/lo 64-bit halves)
 * and port (0: ephemeral). IPv4 sockets get IP_MTU_DISCOVER = IP_PMTUDISC_DO: DF set, so the kernel writes IP ID 0
 * for unconnected sockets, which the RoCEv2 ICRC covers. IPv6 sockets are IPV6_V6ONLY and accept UDP checksum 0
 * (UDP_NO_CHECK6_RX, as rxe sends). Every socket's TTL / unicast hop limit is RVT_SOCKET_HOP_LIMIT, so datagrams with
 * that hop limit go without a control message. The received IP header's fields are not asked for (rvt_recv_ipinfo
 * turns them on).
 */
static jint JNICALL rvt_open(JNIEnv *env, jclass cls, jboolean ipv6, jint v4, jlong hi, jlong lo, jint scope_id,
                             jint port, jint buf_bytes, jboolean reuse_port)
{
    (void) env;
    (void) cls;
    if (port < 0 || port > 65535) {
        return -EINVAL;
    }
    int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    int one = 1;
    int r = 0;
    if (ipv6) {
        /* The flow label of each datagram sent taken from its destination's sin6_flowinfo. */
        r = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (r == 0) {
            r = setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, &one, sizeof one);
        }
        if (r == 0) {
            int hops = RVT_SOCKET_HOP_LIMIT;
            r = setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof hops);
        }
        if (r == 0) {
            /*
             * Accept UDP checksum 0, which Linux rxe sends on IPv6 (prepare_udp_hdr; RoCEv2 relies on the ICRC, which
             * covers the UDP ports, length and payload and which the receive path checks on every IPv6 packet).
             * Without it the kernel drops such datagrams (Udp6InCsumErrors) before we see them. A non-zero checksum
             * is still verified. Best effort: only kernels before 3.16 lack the option.
             */
            (void) setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_RX, &one, sizeof one);
        }
    } else {
        int pmtu = IP_PMTUDISC_DO;
        r = setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
        if (r == 0) {
            int ttl = RVT_SOCKET_HOP_LIMIT;
            r = setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl);
        }
    }
    if (r == 0 && reuse_port) {
        /* A flow's source port: other HCAs of this host may send from the same one. */
        r = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    }
    if (r == 0 && buf_bytes > 0) {
        /*
         * Best effort: the plain options are capped by net.core.[rw]mem_max (212992 on a fresh Debian), which a few
         * 64 KiB RDMA WRITEs in flight overrun; the FORCE variants pass the cap with CAP_NET_ADMIN (root) and fail
         * harmlessly without it. The kernel's answer is not an error either way.
         */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf_bytes, sizeof buf_bytes) != 0) {
            (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf_bytes, sizeof buf_bytes);
        }
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf_bytes, sizeof buf_bytes) != 0) {
            (void) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf_bytes, sizeof buf_bytes);
        }
    }
    if (r == 0) {
        if (ipv6) {
            struct sockaddr_in6 a;
            memset(&a, 0, sizeof a);
            a.sin6_family = AF_INET6;
            a.sin6_port = htons((uint16_t) port);
            a.sin6_scope_id = (uint32_t) scope_id;
            put_be64(a.sin6_addr.s6_addr, hi);
            put_be64(a.sin6_addr.s6_addr + 8, lo);
            r = bind(fd, (struct sockaddr *) &a, sizeof a);
        } else {
            struct sockaddr_in a;
            memset(&a, 0, sizeof a);
            a.sin_family = AF_INET;
            a.sin_port = htons((uint16_t) port);
            a.sin_addr.s_addr = htonl((uint32_t) v4);
            r = bind(fd, (struct sockaddr *) &a, sizeof a);
        }
    }
    if (r != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/*
 * Asks the kernel for (on != 0) or stops asking for the received IP header's TOS/traffic class, TTL/hop limit and
 * (IPv6) flow label as control messages on every receive: IP_RECVTOS and IP_RECVTTL, or IPV6_RECVTCLASS,
 * IPV6_RECVHOPLIMIT and IPV6_FLOWINFO. The kernel reads these flags when a datagram is received, not when it is
 * queued, so the change applies to every datagram received after it. Writing the control messages cost the kernel
 * 60-110 ns of a 64 B RC SEND's receive, about a quarter of recvmmsg (put_cmsg and its user-copy checks; perf,
 * 2026-12-01). Returns 0 or -errno.
 */
static jint JNICALL rvt_recv_ipinfo(JNIEnv *env, jclass cls, jint fd, jboolean ipv6, jboolean on)
{
    (void) env;
    (void) cls;
    int v = on ? 1 : 0;
    int r;
    if (ipv6) {
        r = setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &v, sizeof v);
        if (r == 0) {
            r = setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &v, sizeof v);
        }
        if (r == 0) {
            r = setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO, &v, sizeof v);
        }
    } else {
        r = setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &v, sizeof v);
        if (r == 0) {
            r = setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &v, sizeof v);
        }
    }
    return r == 0 ? 0 : -errno;
}

/*
 * Turns UDP GRO on (on != 0) or off for a socket (UDP_GRO, Linux 5.0): the kernel then may hand a run of datagrams of
 * one flow as one coalesced datagram, the segments' length in a UDP_GRO control message (rvt_recv_batch puts it in
 * the descriptor's flags); a UDP GSO message from this host reaches it whole. Returns 0 or -errno (ENOPROTOOPT
 * before Linux 5.0).
 */
static jint JNICALL rvt_recv_gro(JNIEnv *env, jclass cls, jint fd, jboolean on)
{
    (void) env;
    (void) cls;
    int v = on ? 1 : 0;
    return setsockopt(fd, SOL_UDP, UDP_GRO, &v, sizeof v) == 0 ? 0 : -errno;
}

/*
 * Tests only: the socket sends IPv6 datagrams with UDP checksum 0 (UDP_NO_CHECK6_TX), as Linux rxe does, so that a
 * test can play rxe's sender. driver-jni itself never calls it: its datagrams carry real checksums, which every
 * receiver accepts. Returns 0 or -errno.
 */
static jint JNICALL rvt_test_zero_checksum6_tx(JNIEnv *env, jclass cls, jint fd)
{
    (void) env;
    (void) cls;
    int one = 1;
    return setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_TX, &one, sizeof one) == 0 ? 0 : -errno;
}

static jint JNICALL rvt_local_port(JNIEnv *env, jclass cls, jint fd)
{
    (void) env;
    (void) cls;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *) &ss, &len) != 0) {
        return -errno;
    }
    if (ss.ss_family == AF_INET) {
        return ntohs(((struct sockaddr_in *) &ss)->sin_port);
    }
    return ntohs(((struct sockaddr_in6 *) &ss)->sin6_port);
}

/*
 * The socket's drop count (SO_MEMINFO's SK_MEMINFO_DROPS: datagrams the kernel dropped for this socket, above all
 * because its receive buffer was full), as an unsigned 32-bit value, or -errno.
 */
static jlong JNICALL rvt_drops(JNIEnv *env, jclass cls, jint fd)
{
    (void) env;
    (void) cls;
    uint32_t mem[SK_MEMINFO_VARS];
    socklen_t len = sizeof mem;
    if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) != 0) {
        return -errno;
    }
    if (len < (socklen_t) ((SK_MEMINFO_DROPS + 1) * sizeof mem[0])) {
        return -EOPNOTSUPP;
    }
    return (jlong) mem[SK_MEMINFO_DROPS];
}

/*
 * The buffer the kernel granted the socket: SO_SNDBUF (send != 0) or SO_RCVBUF, in bytes as getsockopt reports them
 * (Linux doubles what was asked, for its bookkeeping, and caps a plain request at net.core.[rw]mem_max), or -errno.
 */
static jint JNICALL rvt_buffer_bytes(JNIEnv *env, jclass cls, jint fd, jboolean send)
{
    (void) env;
    (void) cls;
    int v = 0;
    socklen_t len = sizeof v;
    if (getsockopt(fd, SOL_SOCKET, send ? SO_SNDBUF : SO_RCVBUF, &v, &len) != 0) {
        return -errno;
    }
    return v;
}

static jint JNICALL rvt_close(JNIEnv *env, jclass cls, jint fd)
{
    (void) env;
    (void) cls;
    return close(fd) == 0 ? 0 : -errno;
}

static socklen_t to_sockaddr(const struct rvt_tx_desc *d, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(struct sockaddr_in6));
    if (d->family == 4) {
        struct sockaddr_in *a = (struct sockaddr_in *) ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(d->port);
        memcpy(&a->sin_addr, d->ip, 4);
        return sizeof *a;
    }
    struct sockaddr_in6 *a = (struct sockaddr_in6 *) ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(d->port);
    a->sin6_scope_id = d->scope_id;
    a->sin6_flowinfo = htonl(d->flow_label & RVT_FLOWLABEL_MASK);
    memcpy(&a->sin6_addr, d->ip, 16);
    return sizeof *a;
}

/*
 * The TOS/traffic class and TTL/hop limit of one datagram as control messages, each only where it differs from the
 * socket's own (TOS 0, RVT_SOCKET_HOP_LIMIT); returns their length (0: none).
 */
static size_t ip_cmsgs(const struct rvt_tx_desc *d, uint8_t *buf)
{
    int hop = d->hop_limit == RVT_SOCKET_HOP_LIMIT ? 0 : d->hop_limit;
    if (d->tclass == 0 && hop == 0) {
        return 0; /* the socket's: TOS 0, its TTL / hop limit */
    }
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_control = buf;
    m.msg_controllen = RVT_CMSG_SPACE;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    size_t len = 0;
    int v6 = d->family == 6;
    int values[2] = {d->tclass, hop};
    int types[2] = {v6 ? IPV6_TCLASS : IP_TOS, v6 ? IPV6_HOPLIMIT : IP_TTL};
    for (int i = 0; i < 2; i++) {
        if (i == 1 && values[i] == 0) {
            continue;
        }
        c->cmsg_level = v6 ? IPPROTO_IPV6 : IPPROTO_IP;
        c->cmsg_type = types[i];
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &values[i], sizeof(int));
        len += CMSG_SPACE(sizeof(int));
        m.msg_controllen = len;
        c = (struct cmsghdr *) ((uint8_t *) c + CMSG_SPACE(sizeof(int)));
    }
    return len;
}

/* The bytes of one descriptor's datagram. */
static size_t datagram_len(const struct rvt_tx_desc *d)
{
    int n = d->nseg < 1 || d->nseg > RVT_TX_SEGS ? 1 : d->nseg;
    size_t len = 0;
    for (int k = 0; k < n; k++) {
        len += (size_t) d->seg[k].len;
    }
    return len;
}

/* Whether b goes where a goes with a's IP header fields: the same socket address, traffic class and hop limit. */
static int same_flow(const struct rvt_tx_desc *a, const struct rvt_tx_desc *b)
{
    return a->family == b->family && a->port == b->port && a->scope_id == b->scope_id
           && ((a->flow_label ^ b->flow_label) & RVT_FLOWLABEL_MASK) == 0 && a->tclass == b->tclass
           && a->hop_limit == b->hop_limit && memcmp(a->ip, b->ip, sizeof a->ip) == 0;
}

/*
 * How many descriptors from d on (at most left) one UDP GSO message carries: IPv6 datagrams to one destination with
 * the same header fields, each exactly as long as the first except the last, which may be shorter (the kernel cuts
 * the message into segments of the first's length). 1: send d alone.
 */
static int gso_run(const struct rvt_tx_desc *d, int left, size_t *segment)
{
    if (d->family != 6) {
        return 1; /* IPv4: the kernel numbers the segments' IP IDs, which the ICRC covers */
    }
    size_t size = datagram_len(d);
    size_t total = size;
    int n = 1;
    while (n < left && n < RVT_GSO_MAX_SEGS && same_flow(d, &d[n])) {
        size_t len = datagram_len(&d[n]);
        if (len > size || len == 0 || total + len > RVT_GSO_MAX_BYTES) {
            break;
        }
        total += len;
        n++;
        if (len < size) {
            break; /* only the last segment may be shorter */
        }
    }
    *segment = size;
    return n;
}

/* Gathers descriptor d's segments into iov; returns how many iovecs it used. */
static int gather(const struct rvt_tx_desc *d, struct iovec *iov)
{
    int n = d->nseg;
    if (n < 1 || n > RVT_TX_SEGS) {
        n = 1;
    }
    for (int k = 0; k < n; k++) {
        iov[k].iov_base = (void *) (uintptr_t) d->seg[k].addr;
        iov[k].iov_len = (size_t) d->seg[k].len;
    }
    return n;
}

/* Appends a UDP_SEGMENT control message of the segment size after the len bytes at buf; returns the new length. */
static size_t gso_cmsg(uint8_t *buf, size_t len, size_t segment)
{
    struct cmsghdr *c = (struct cmsghdr *) (buf + len);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    uint16_t v = (uint16_t) segment;
    memcpy(CMSG_DATA(c), &v, sizeof v);
    return len + CMSG_SPACE(sizeof(uint16_t));
}

/* One sendmmsg of count messages, again if a signal interrupted it; returns how many left or -errno. */
static int send_messages(int fd, struct mmsghdr *msgs, int count)
{
    int r;
    do {
        r = sendmmsg(fd, msgs, (unsigned) count, 0);
    } while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
}

/*
 * Sends descriptors [first, first + count) of the array at desc with sendmmsg, each datagram gathered from its
 * segments (1 to RVT_TX_SEGS; a count out of range sends the first segment only). With RVT_SEND_GSO in flags a run
 * of IPv6 datagrams gso_run groups goes as one message with a UDP_SEGMENT control message (UDP GSO): the kernel
 * builds each datagram's UDP/IP header, and on loopback or a device that segments in hardware passes the run
 * through its stack once. Returns how many descriptors were sent from first on (the kernel stops at the first
 * message that fails; the caller drops that descriptor and calls again for the rest), of which how many as GSO
 * segments (RVT_SENT_GSO_SHIFT), or -errno if the very first failed. A first GSO message the kernel refuses (EIO:
 * no checksum offload on the route's device; EINVAL, EOPNOTSUPP, ENOPROTOOPT) is sent again without GSO, and the
 * result says so (RVT_SENT_GSO_REFUSED) so that the caller stops asking.
 */
static jint JNICALL rvt_send_batch(JNIEnv *env, jclass cls, jint fd, jlong desc, jint first, jint count, jint flags)
{
    (void) env;
    (void) cls;
    if (count <= 0) {
        return 0;
    }
    if (count > RVT_MAX_BATCH) {
        count = RVT_MAX_BATCH;
    }
    struct rvt_tx_desc *d = (struct rvt_tx_desc *) (uintptr_t) desc + first;
    struct mmsghdr msgs[RVT_MAX_BATCH];
    struct iovec iov[RVT_MAX_BATCH * RVT_TX_SEGS];
    struct sockaddr_storage addrs[RVT_MAX_BATCH];
    uint8_t control[RVT_MAX_BATCH][RVT_CMSG_SPACE] __attribute__((aligned(8)));
    uint8_t carried[RVT_MAX_BATCH]; /* descriptors per message */
    int gso = (flags & RVT_SEND_GSO) != 0;
    int refused = 0;
    for (;;) {
        int nmsg = 0;
        int niov = 0;
        for (int i = 0; i < count; nmsg++) {
            size_t segment = 0;
            int run = gso ? gso_run(&d[i], count - i, &segment) : 1;
            struct msghdr *h = &msgs[nmsg].msg_hdr;
            memset(&msgs[nmsg], 0, sizeof msgs[nmsg]);
            h->msg_name = &addrs[nmsg];
            h->msg_namelen = to_sockaddr(&d[i], &addrs[nmsg]);
            h->msg_iov = &iov[niov];
            for (int k = 0; k < run; k++) {
                int used = gather(&d[i + k], &iov[niov]);
                niov += used;
                h->msg_iovlen += (size_t) used;
            }
            size_t clen = ip_cmsgs(&d[i], control[nmsg]);
            if (run > 1) {
                clen = gso_cmsg(control[nmsg], clen, segment);
            }
            h->msg_control = clen == 0 ? NULL : control[nmsg];
            h->msg_controllen = clen;
            carried[nmsg] = (uint8_t) run;
            i += run;
        }
        int r = send_messages(fd, msgs, nmsg);
        if (r < 0 && gso && carried[0] > 1
            && (r == -EIO || r == -EINVAL || r == -EOPNOTSUPP || r == -ENOPROTOOPT)) {
            gso = 0; /* this route cannot take GSO: the same batch one datagram a message */
            refused = RVT_SENT_GSO_REFUSED;
            continue;
        }
        if (r < 0) {
            return r; /* not GSO's fault if the same datagram fails alone: no RVT_SENT_GSO_REFUSED */
        }
        int sent = 0;
        int segments = 0;
        for (int m = 0; m < r; m++) {
            sent += carried[m];
            segments += carried[m] > 1 ? carried[m] : 0;
        }
        return sent | segments << RVT_SENT_GSO_SHIFT | refused;
    }
}

/*
 * Tests only: one datagram from the bytes at data, to the IPv4 (family 4, v4 big-endian) or IPv6 (hi, lo) address and
 * port, as a UDP GSO message of segment bytes per segment (the last may be shorter) when segment > 0: the kernel cuts
 * it into datagrams (another host's GSO sender), or hands it whole to a receiving socket of this host with UDP_GRO.
 * Unlike rvt_send_batch, over IPv4 too. Returns the bytes sent or -errno.
 */
static jint JNICALL rvt_test_send_segmented(JNIEnv *env, jclass cls, jint fd, jboolean ipv6, jint v4, jlong hi,
                                            jlong lo, jint port, jlong data, jint len, jint segment)
{
    (void) env;
    (void) cls;
    struct sockaddr_storage ss;
    struct rvt_tx_desc d;
    memset(&d, 0, sizeof d);
    d.family = ipv6 ? 6 : 4;
    d.port = (uint16_t) port;
    if (ipv6) {
        put_be64(d.ip, hi);
        put_be64(d.ip + 8, lo);
    } else {
        uint32_t a = htonl((uint32_t) v4);
        memcpy(d.ip, &a, 4);
    }
    struct iovec iov = {.iov_base = (void *) (uintptr_t) data, .iov_len = (size_t) len};
    uint8_t control[RVT_CMSG_SPACE] __attribute__((aligned(8)));
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_name = &ss;
    m.msg_namelen = to_sockaddr(&d, &ss);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (segment > 0) {
        m.msg_control = control;
        m.msg_controllen = gso_cmsg(control, 0, (size_t) segment);
    }
    ssize_t r = sendmsg(fd, &m, 0);
    return r < 0 ? -errno : (jint) r;
}

/*
 * From the control messages: the received IP header's TOS/traffic class, TTL/hop limit and IPv6 flow label, and the
 * segment size of a datagram UDP GRO coalesced (into the flags' bits 16-31).
 */
static void read_cmsgs(struct msghdr *m, struct rvt_rx_desc *o)
{
    uint32_t tclass = 0;
    uint32_t hop = 0;
    uint32_t flow = 0;
    int seen = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
        int v = 0;
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS && c->cmsg_len >= CMSG_LEN(1)) {
            tclass = *(uint8_t *) CMSG_DATA(c); /* IP_TOS arrives as one byte */
            seen = 1;
        } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL && c->cmsg_len >= CMSG_LEN(sizeof v)) {
            memcpy(&v, CMSG_DATA(c), sizeof v);
            hop = (uint32_t) v;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS
                   && c->cmsg_len >= CMSG_LEN(sizeof v)) {
            memcpy(&v, CMSG_DATA(c), sizeof v);
            tclass = (uint32_t) v;
            seen = 1;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT
                   && c->cmsg_len >= CMSG_LEN(sizeof v)) {
            memcpy(&v, CMSG_DATA(c), sizeof v);
            hop = (uint32_t) v;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_FLOWINFO
                   && c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
            uint32_t fi;
            memcpy(&fi, CMSG_DATA(c), sizeof fi);
            flow = ntohl(fi) & RVT_FLOWLABEL_MASK;
        } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO && c->cmsg_len >= CMSG_LEN(sizeof v)) {
            memcpy(&v, CMSG_DATA(c), sizeof v);
            if (v > 0 && v <= 0xFFFF) {
                o->flags |= (uint32_t) v << RX_SEGMENT_SHIFT;
            }
        }
    }
    o->tclass = (uint8_t) tclass;
    o->ipinfo = (flow & RVT_FLOWLABEL_MASK) | ((hop & 0xFFu) << 24);
    if (seen && hop != 0) {
        o->flags |= RX_IPINFO;
    }
}

/*
 * Receives up to count datagrams without blocking (recvmmsg, MSG_DONTWAIT) into slots of slot_size bytes at data,
 * filling one rx descriptor each (with UDP GRO a slot may hold a coalesced datagram: its segment size in the flags).
 * Returns how many arrived (0 if none was waiting) or -errno.
 */
static jint JNICALL rvt_recv_batch(JNIEnv *env, jclass cls, jint fd, jlong desc, jlong data, jint slot_size,
                                   jint count)
{
    (void) env;
    (void) cls;
    if (count <= 0 || slot_size <= 0) {
        return -EINVAL;
    }
    if (count > RVT_MAX_BATCH) {
        count = RVT_MAX_BATCH;
    }
    struct rvt_rx_desc *d = (struct rvt_rx_desc *) (uintptr_t) desc;
    uint8_t *base = (uint8_t *) (uintptr_t) data;
    struct mmsghdr msgs[RVT_MAX_BATCH];
    struct iovec iov[RVT_MAX_BATCH];
    struct sockaddr_storage addrs[RVT_MAX_BATCH];
    uint8_t control[RVT_MAX_BATCH][RVT_CMSG_SPACE] __attribute__((aligned(8)));
    for (int i = 0; i < count; i++) {
        iov[i].iov_base = base + (size_t) i * (size_t) slot_size;
        iov[i].iov_len = (size_t) slot_size;
        memset(&msgs[i], 0, sizeof msgs[i]);
        msgs[i].msg_hdr.msg_name = &addrs[i];
        msgs[i].msg_hdr.msg_namelen = sizeof addrs[i];
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_control = control[i];
        msgs[i].msg_hdr.msg_controllen = RVT_CMSG_SPACE;
    }
    int r;
    do {
        r = recvmmsg(fd, msgs, (unsigned) count, MSG_DONTWAIT, NULL);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    }
    for (int i = 0; i < r; i++) {
        struct rvt_rx_desc *o = &d[i];
        o->len = msgs[i].msg_len;
        o->flags = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ? RX_TRUNCATED : 0;
        read_cmsgs(&msgs[i].msg_hdr, o);
        memset(o->ip, 0, sizeof o->ip);
        if (addrs[i].ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *) &addrs[i];
            o->family = 4;
            o->port = ntohs(a->sin_port);
            memcpy(o->ip, &a->sin_addr, 4);
        } else {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *) &addrs[i];
            o->family = 6;
            o->port = ntohs(a->sin6_port);
            memcpy(o->ip, &a->sin6_addr, 16);
        }
    }
    return r;
}

static jint JNICALL rvt_eventfd(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static jint JNICALL rvt_signal(JNIEnv *env, jclass cls, jint efd)
{
    (void) env;
    (void) cls;
    uint64_t one = 1;
    ssize_t n = write(efd, &one, sizeof one);
    return n == (ssize_t) sizeof one || errno == EAGAIN ? 0 : -errno;
}

/*
 * Blocks until the socket is readable, the eventfd was signalled (then resets it) or timeout_ms passed.
 * Returns 1 if woken by either, 0 on timeout, -errno on error.
 */
static jint JNICALL rvt_await(JNIEnv *env, jclass cls, jint fd, jint efd, jint timeout_ms)
{
    (void) env;
    (void) cls;
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = efd, .events = POLLIN}};
    int r = poll(p, efd >= 0 ? 2 : 1, timeout_ms);
    if (r < 0) {
        return errno == EINTR ? 1 : -errno;
    }
    if (r > 0 && efd >= 0 && (p[1].revents & POLLIN)) {
        uint64_t v;
        (void) !read(efd, &v, sizeof v);
    }
    return r > 0 ? 1 : 0;
}

static const JNINativeMethod METHODS[] = {
    {"abiVersion", "()I", (void *) rvt_abi_version},
    {"abiSize", "(I)I", (void *) rvt_abi_size},
    {"address", "(Ljava/nio/ByteBuffer;)J", (void *) rvt_address},
    {"open", "(ZIJJIIIZ)I", (void *) rvt_open},
    {"localPort", "(I)I", (void *) rvt_local_port},
    {"close", "(I)I", (void *) rvt_close},
    {"drops", "(I)J", (void *) rvt_drops},
    {"bufferBytes", "(IZ)I", (void *) rvt_buffer_bytes},
    {"sendBatch", "(IJIII)I", (void *) rvt_send_batch},
    {"recvBatch", "(IJJII)I", (void *) rvt_recv_batch},
    {"recvIpInfo", "(IZZ)I", (void *) rvt_recv_ipinfo},
    {"recvGro", "(IZ)I", (void *) rvt_recv_gro},
    {"testSendSegmented", "(IZIJJIJII)I", (void *) rvt_test_send_segmented},
    {"eventfd", "()I", (void *) rvt_eventfd},
    {"signal", "(I)I", (void *) rvt_signal},
    {"await", "(III)I", (void *) rvt_await},
    {"testZeroChecksum6Tx", "(I)I", (void *) rvt_test_zero_checksum6_tx},
};

__attribute__((visibility("default"))) JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void) reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_ERR;
    }
    jclass cls = (*env)->FindClass(env, "io/rvt/driver/jni/NativeUdp");
    if (cls == NULL) {
        return JNI_ERR;
    }
    if ((*env)->RegisterNatives(env, cls, METHODS, (jint) (sizeof METHODS / sizeof METHODS[0])) != 0) {
        return JNI_ERR;
    }
    return JNI_VERSION_1_8;
}
