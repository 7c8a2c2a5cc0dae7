/*
 * mw_flush_peer: the Linux side of rvt's interop tests of memory windows, ATOMIC_WRITE and FLUSH (it/interop,
 * MwFlushLinuxIT; rvt's side is io.rvt.it.interop.tools.MwFlushClient). Compiled in the guest against its own
 * rdma-core (the trixie image has gcc and libibverbs-dev):  gcc -O1 -o mw_flush_peer mw_flush_peer.c -libverbs
 *
 * Usage: mw_flush_peer [-d DEVICE] [-p TCP_PORT] [-g GID_INDEX] [-u ACK_TIMEOUT]   (rxe0, 18600, 1, 18)
 *
 * Listens on TCP_PORT, takes one connection and answers its commands, one line each way: "OK ..." or "ERR ...".
 * One RC QP (an extended QP: every work request is posted with the ibv_wr_* calls and waited for), one PD, one
 * 4 KiB region 'buf' (LOCAL_WRITE, REMOTE_READ/WRITE/ATOMIC, MW_BIND, FLUSH_GLOBAL) whose bytes the peer sets and
 * reads back, one 4 KiB scratch region for what this side READs, WRITEs and fetches. Numbers are hex without 0x.
 *   caps                          -> OK cap_flags_ex=X atomic_write=0|1 flush_global=0|1 flush_persistent=0|1
 *   qp QPN PSN GID                -> (re)creates the QP and connects it to the peer's (GID: 32 hex digits);
 *                                    OK QPN PSN GID
 *   mr                            -> OK ADDR LEN RKEY (buf)
 *   set OFF HEX / get OFF LEN     -> buf's bytes: OK / OK HEX
 *   bind TYPE OFF LEN ACCESS [zb] -> binds a window of type 1 (ibv_bind_mw) or 2 (IBV_WR_BIND_MW) on buf;
 *                                    ACCESS letters r w a (remote read, write, atomic); zb: zero-based (type 2);
 *                                    OK RKEY ADDR (ADDR 0 when zero-based)
 *   inv RKEY                      -> LOCAL_INV of a type 2 window's rkey (or anything else, to see it refused)
 *   dealloc TYPE                  -> ibv_dealloc_mw of the type 1 or 2 window
 *   read RKEY ADDR LEN            -> RDMA READ into scratch: OK HEX
 *   write RKEY ADDR HEX           -> RDMA WRITE
 *   fadd RKEY ADDR ADD            -> FETCH_AND_ADD: OK OLD
 *   cswap RKEY ADDR CMP SWAP      -> CMP_AND_SWP: OK OLD
 *   awrite RKEY ADDR HEX16        -> ATOMIC_WRITE of the 8 bytes (ibv_wr_atomic_write)
 *   flush RKEY ADDR LEN TYPE LVL  -> FLUSH (ibv_wr_flush), TYPE g|p (IBV_FLUSH_GLOBAL/PERSISTENT), LVL r|m
 *                                    (IBV_FLUSH_RANGE/MR)
 *   sendinv RKEY                  -> SEND_WITH_INV of 8 bytes invalidating the peer's RKEY
 *   quit                          -> OK, then exit 0
 * A work request that completes in error answers "ERR status=N STRING" (ibv_wc_status_str) and leaves the QP in
 * ERR: the peer sends 'qp' again before the next. A command that cannot be done answers "ERR why".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF_LEN 4096
#define WAIT_SECONDS 120 /* one work request under TCG on a busy host, retries included */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_qp_ex *qpx;
static struct ibv_mr *buf_mr, *scratch_mr;
static unsigned char *buf, *scratch;
static struct ibv_mw *mw[3]; /* by type */
static int gid_index = 1, ack_timeout = 18;
static FILE *out;

static void reply(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}

static void hex(char *dst, const unsigned char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(dst + 2 * i, "%02x", src[i]);
	dst[2 * n] = 0;
}

static int unhex(unsigned char *dst, size_t max, const char *src, size_t *n)
{
	size_t len = strlen(src);
	if (len % 2 || len / 2 > max)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned v;
		if (sscanf(src + 2 * i, "%2x", &v) != 1)
			return -1;
		dst[i] = v;
	}
	*n = len / 2;
	return 0;
}

/* Waits for the one outstanding completion: 0 and *wc filled, or -1 after WAIT_SECONDS. */
static int await(struct ibv_wc *wc)
{
	time_t end = time(NULL) + WAIT_SECONDS;
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		if (time(NULL) > end)
			return -1;
		usleep(200);
	}
}

/* Completes a ibv_wr_start ... ibv_wr_complete sequence: replies ERR on failure; returns 0 on success. */
static int finish(const char *what)
{
	struct ibv_wc wc;
	int rc = ibv_wr_complete(qpx);
	if (rc) {
		reply("ERR %s: ibv_wr_complete %s", what, strerror(rc));
		return -1;
	}
	if (await(&wc)) {
		reply("ERR %s: no completion within %d s", what, WAIT_SECONDS);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		reply("ERR status=%d %s", wc.status, ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

static int parse_gid(const char *s, union ibv_gid *gid)
{
	size_t n;
	return unhex(gid->raw, 16, s, &n) || n != 16 ? -1 : 0;
}

static int access_of(const char *s)
{
	int a = 0;
	for (; *s; s++)
		a |= *s == 'r' ? IBV_ACCESS_REMOTE_READ : *s == 'w' ? IBV_ACCESS_REMOTE_WRITE
		   : *s == 'a' ? IBV_ACCESS_REMOTE_ATOMIC : 0;
	return a;
}

static void cmd_qp(uint32_t rqpn, uint32_t rpsn, const char *rgid)
{
	union ibv_gid dgid, sgid;
	if (parse_gid(rgid, &dgid)) {
		reply("ERR bad GID %s", rgid);
		return;
	}
	if (qp) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	struct ibv_qp_init_attr_ex init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 0 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_SEND
			| IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD
			| IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV
			| IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_FLUSH,
	};
	qp = ibv_create_qp_ex(ctx, &init);
	if (!qp) {
		reply("ERR ibv_create_qp_ex: %s", strerror(errno));
		return;
	}
	qpx = ibv_qp_to_qp_ex(qp);
	uint32_t psn = (uint32_t)random() & 0xffffff;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE
			| IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_FLUSH_GLOBAL };
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc) {
		reply("ERR INIT: %s", strerror(rc));
		return;
	}
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = rqpn;
	a.rq_psn = rpsn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
			   | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc) {
		reply("ERR RTR: %s", strerror(rc));
		return;
	}
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = ack_timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT
			   | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc) {
		reply("ERR RTS: %s", strerror(rc));
		return;
	}
	/* a receive for the peer's SEND (none is expected; SEND_WITH_INV goes the other way) */
	if (ibv_query_gid(ctx, 1, gid_index, &sgid)) {
		reply("ERR ibv_query_gid %d", gid_index);
		return;
	}
	char g[33];
	hex(g, sgid.raw, 16);
	reply("OK %x %x %s", qp->qp_num, psn, g);
}

static void cmd_caps(void)
{
	struct ibv_device_attr_ex attr;
	int rc = ibv_query_device_ex(ctx, NULL, &attr);
	if (rc) {
		reply("ERR ibv_query_device_ex: %s", strerror(rc));
		return;
	}
	uint64_t f = attr.device_cap_flags_ex;
	reply("OK cap_flags_ex=%" PRIx64 " atomic_write=%d flush_global=%d flush_persistent=%d mem_window=%d "
	      "mw_type_2=%d", f, !!(f & IB_UVERBS_DEVICE_ATOMIC_WRITE), !!(f & IB_UVERBS_DEVICE_FLUSH_GLOBAL),
	      !!(f & IB_UVERBS_DEVICE_FLUSH_PERSISTENT), !!(f & IBV_DEVICE_MEM_WINDOW),
	      !!(f & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)));
}

static void cmd_bind(int type, size_t off, size_t len, const char *acc, int zero_based)
{
	if ((type != 1 && type != 2) || off > BUF_LEN || len > BUF_LEN - off) {
		reply("ERR bad window: type %d offset %zu length %zu", type, off, len);
		return;
	}
	if (!mw[type]) {
		mw[type] = ibv_alloc_mw(pd, type == 1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
		if (!mw[type]) {
			reply("ERR ibv_alloc_mw type %d: %s", type, strerror(errno));
			return;
		}
	}
	struct ibv_mw_bind_info info = { .mr = buf_mr, .addr = (uint64_t)(uintptr_t)(buf + off), .length = len,
		.mw_access_flags = access_of(acc) | (zero_based ? IBV_ACCESS_ZERO_BASED : 0) };
	if (type == 1) {
		struct ibv_mw_bind bind = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED, .bind_info = info };
		struct ibv_wc wc;
		int rc = ibv_bind_mw(qp, mw[1], &bind);
		if (rc) {
			reply("ERR ibv_bind_mw: %s", strerror(rc));
			return;
		}
		if (await(&wc)) {
			reply("ERR bind: no completion");
			return;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			reply("ERR status=%d %s", wc.status, ibv_wc_status_str(wc.status));
			return;
		}
	} else {
		uint32_t rkey = ibv_inc_rkey(mw[2]->rkey);
		ibv_wr_start(qpx);
		qpx->wr_id = 2;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_bind_mw(qpx, mw[2], rkey, &info);
		if (finish("bind"))
			return;
		mw[2]->rkey = rkey; /* what the provider does on success too; kept explicit */
	}
	reply("OK %x %" PRIx64, mw[type]->rkey, zero_based ? (uint64_t)0 : info.addr);
}

/* Posts one work request of the remote kinds; its local data in scratch. */
static void cmd_remote(const char *op, char **arg, int nargs)
{
	uint32_t rkey = strtoul(arg[0], NULL, 16);
	uint64_t addr = strtoull(arg[1], NULL, 16);
	size_t n = 0;
	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (!strcmp(op, "read") && nargs == 3) {
		n = strtoul(arg[2], NULL, 16);
		if (n > BUF_LEN)
			goto bad;
		memset(scratch, 0xee, BUF_LEN);
		ibv_wr_rdma_read(qpx, rkey, addr);
		ibv_wr_set_sge(qpx, scratch_mr->lkey, (uintptr_t)scratch, n);
	} else if (!strcmp(op, "write") && nargs == 3) {
		if (unhex(scratch, BUF_LEN, arg[2], &n))
			goto bad;
		ibv_wr_rdma_write(qpx, rkey, addr);
		ibv_wr_set_sge(qpx, scratch_mr->lkey, (uintptr_t)scratch, n);
	} else if (!strcmp(op, "fadd") && nargs == 3) {
		memset(scratch, 0xee, 8);
		ibv_wr_atomic_fetch_add(qpx, rkey, addr, strtoull(arg[2], NULL, 16));
		ibv_wr_set_sge(qpx, scratch_mr->lkey, (uintptr_t)scratch, 8);
	} else if (!strcmp(op, "cswap") && nargs == 4) {
		memset(scratch, 0xee, 8);
		ibv_wr_atomic_cmp_swp(qpx, rkey, addr, strtoull(arg[2], NULL, 16), strtoull(arg[3], NULL, 16));
		ibv_wr_set_sge(qpx, scratch_mr->lkey, (uintptr_t)scratch, 8);
	} else if (!strcmp(op, "awrite") && nargs == 3) {
		unsigned char v[8];
		if (unhex(v, 8, arg[2], &n) || n != 8)
			goto bad;
		ibv_wr_atomic_write(qpx, rkey, addr, v);
	} else if (!strcmp(op, "flush") && nargs == 5) {
		uint8_t type = arg[3][0] == 'p' ? IBV_FLUSH_PERSISTENT : IBV_FLUSH_GLOBAL;
		uint8_t level = arg[4][0] == 'm' ? IBV_FLUSH_MR : IBV_FLUSH_RANGE;
		ibv_wr_flush(qpx, rkey, addr, strtoul(arg[2], NULL, 16), type, level);
	} else if (!strcmp(op, "sendinv") && nargs == 1) {
		memset(scratch, 0x5a, 8);
		ibv_wr_send_inv(qpx, rkey);
		ibv_wr_set_sge(qpx, scratch_mr->lkey, (uintptr_t)scratch, 8);
	} else {
		goto bad;
	}
	if (finish(op))
		return;
	if (!strcmp(op, "read") || !strcmp(op, "fadd") || !strcmp(op, "cswap")) {
		static char h[2 * BUF_LEN + 1];
		hex(h, scratch, !strcmp(op, "read") ? n : 8);
		reply("OK %s", h);
	} else {
		reply("OK");
	}
	return;
bad:
	ibv_wr_abort(qpx);
	reply("ERR bad arguments to %s", op);
}

static void serve(void)
{
	char line[2 * BUF_LEN + 256];
	while (fgets(line, sizeof line, stdin)) {
		char *arg[8];
		int n = 0;
		for (char *t = strtok(line, " \r\n"); t && n < 8; t = strtok(NULL, " \r\n"))
			arg[n++] = t;
		if (n == 0)
			continue;
		fprintf(stderr, "mw_flush_peer: %s%s%s\n", arg[0], n > 1 ? " " : "", n > 1 ? arg[1] : "");
		if (!strcmp(arg[0], "quit")) {
			reply("OK");
			return;
		} else if (!strcmp(arg[0], "caps")) {
			cmd_caps();
		} else if (!strcmp(arg[0], "qp") && n == 4) {
			cmd_qp(strtoul(arg[1], NULL, 16), strtoul(arg[2], NULL, 16), arg[3]);
		} else if (!qp) {
			reply("ERR no QP yet: send 'qp' first");
		} else if (!strcmp(arg[0], "mr")) {
			reply("OK %" PRIx64 " %x %x", (uint64_t)(uintptr_t)buf, BUF_LEN, buf_mr->rkey);
		} else if (!strcmp(arg[0], "set") && n == 3) {
			size_t off = strtoul(arg[1], NULL, 16), len;
			if (off > BUF_LEN || unhex(buf + off, BUF_LEN - off, arg[2], &len))
				reply("ERR bad set");
			else
				reply("OK");
		} else if (!strcmp(arg[0], "get") && n == 3) {
			static char h[2 * BUF_LEN + 1];
			size_t off = strtoul(arg[1], NULL, 16), len = strtoul(arg[2], NULL, 16);
			if (off > BUF_LEN || len > BUF_LEN - off) {
				reply("ERR bad get");
			} else {
				hex(h, buf + off, len);
				reply("OK %s", h);
			}
		} else if (!strcmp(arg[0], "bind") && (n == 5 || n == 6)) {
			cmd_bind(atoi(arg[1]), strtoul(arg[2], NULL, 16), strtoul(arg[3], NULL, 16), arg[4],
				 n == 6 && !strcmp(arg[5], "zb"));
		} else if (!strcmp(arg[0], "inv") && n == 2) {
			ibv_wr_start(qpx);
			qpx->wr_id = 4;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_local_inv(qpx, strtoul(arg[1], NULL, 16));
			if (!finish("inv"))
				reply("OK");
		} else if (!strcmp(arg[0], "dealloc") && n == 2) {
			int t = atoi(arg[1]);
			int rc = (t == 1 || t == 2) && mw[t] ? ibv_dealloc_mw(mw[t]) : EINVAL;
			if (rc) {
				reply("ERR ibv_dealloc_mw: %s", strerror(rc));
			} else {
				mw[t] = NULL;
				reply("OK");
			}
		} else {
			cmd_remote(arg[0], arg + 1, n - 1);
		}
	}
}

int main(int argc, char **argv)
{
	const char *dev = "rxe0";
	int port = 18600, opt;
	while ((opt = getopt(argc, argv, "d:p:g:u:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'g': gid_index = atoi(optarg); break;
		case 'u': ack_timeout = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: mw_flush_peer [-d DEVICE] [-p TCP_PORT] [-g GID_INDEX] [-u ACK_TIMEOUT]\n");
			return 2;
		}
	}
	srandom(time(NULL) ^ getpid());
	struct ibv_device **list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "mw_flush_peer: no device %s\n", dev);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !cq || posix_memalign((void **)&buf, 4096, BUF_LEN) || posix_memalign((void **)&scratch, 4096, BUF_LEN)) {
		fprintf(stderr, "mw_flush_peer: PD, CQ or buffers: %s\n", strerror(errno));
		return 1;
	}
	memset(buf, 0, BUF_LEN);
	buf_mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE
			    | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_FLUSH_GLOBAL);
	scratch_mr = ibv_reg_mr(pd, scratch, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!buf_mr || !scratch_mr) {
		fprintf(stderr, "mw_flush_peer: ibv_reg_mr: %s\n", strerror(errno));
		return 1;
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = INADDR_ANY };
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) || listen(ls, 1)) {
		fprintf(stderr, "mw_flush_peer: TCP port %d: %s\n", port, strerror(errno));
		return 1;
	}
	fprintf(stderr, "mw_flush_peer: %s listening on TCP %d\n", dev, port);
	int s = accept(ls, NULL, NULL);
	if (s < 0) {
		fprintf(stderr, "mw_flush_peer: accept: %s\n", strerror(errno));
		return 1;
	}
	close(ls);
	if (!freopen("/dev/null", "r", stdin) || dup2(s, 0) < 0)
		return 1;
	out = fdopen(dup(s), "w");
	serve();
	fprintf(stderr, "mw_flush_peer: done\n");
	return 0;
}
