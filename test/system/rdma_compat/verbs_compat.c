/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * An ordinary rdma-core 44 MANA program, built only against the system's
 * <infiniband/verbs.h>, <infiniband/manadv.h>, libibverbs and libmana. Run
 * with LD_LIBRARY_PATH pointing at lib/ibverbs_model it talks to the software
 * MANA device through the replacement libraries, unmodified:
 *
 *   CQs, a WQ, an RWQ indirection table, an RSS QP and a raw TX QP; the rings
 *   from manadv_init_obj(); WQEs written by hand; doorbells rung by hand
 *   (each queue's db_page, or with --doorbell shared the page of an mmap of
 *   cmd_fd at offset 0, as on hardware); frames sent over the model's loop
 *   wire come back on the RX queue with their completions, checksums and
 *   Toeplitz hash; a CQ event is delivered on the completion channel.
 *
 * Its checks are the tests' CHECK/REQUIRE of test/lib/check.h (plain C, no
 * project library). It also checks the ABI the replacement promises (verbs_context layout and
 * abi_compat) and the errno of unsupported verbs. The WQE/CQE encodings are
 * written here from doc/hardware.md §3-§5, independently of the
 * project's mana_gdma.h.
 *
 * Usage: verbs_compat --device NAME [--doorbell queue|shared] [--coalesce 0|1]
 *        [--max-qp-wr K] [--queue-max R]
 * (K: the max_qp_wr and max_cqe query_device must report; R: the largest CQ
 * the provider must take, 256 for rdma-core < 49; both 2048 by default.)
 * Exit 0 when every check passed.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/manadv.h>
#include <infiniband/verbs.h>

/* One program, no test functions: a failed REQUIRE ends it. */
#define CHECK_REQUIRE_END exit(1)
#include "check.h"

/*
 * rdma-core 44 layout (hardware.md §9): what an unmodified binary relies on.
 * ibv_context ends with a pthread_mutex_t: 40 bytes on x86-64, 48 on AArch64.
 */
#if defined(__aarch64__)
_Static_assert(sizeof(struct verbs_context) == 656, "verbs_context size");
#else
_Static_assert(sizeof(struct verbs_context) == 648, "verbs_context size");
#endif
_Static_assert(offsetof(struct verbs_context, context) == 320, "verbs_context.context");
_Static_assert(offsetof(struct verbs_context, sz) == 312, "verbs_context.sz");
_Static_assert(offsetof(struct ibv_context, cmd_fd) == 264, "ibv_context.cmd_fd");
_Static_assert(sizeof(struct manadv_obj) == 48, "manadv_obj");

#define RING_N		256	/* entries per CQ/WQ/SQ the frames use (any provider takes 256) */
#define RX_POSTED	64
#define TX_FRAMES	32
#define BUF_SIZE	2048
#define FRAME_LEN	128
#define TIMEOUT_MS	5000

/* Doorbell page offsets and CQE/WQE encodings (hardware.md §3-§5). */
#define DB_SQ		0x000
#define DB_RQ		0x400
#define DB_CQ		0x800
#define CQE_RX_OKAY	1
#define CQE_RX_COALESCED_4 2
#define CQE_TX_OKAY	32
#define CQE_TX_HDR_PROCESSING_ERROR 37
#define HASH_L4		0x1B6

static const uint8_t rss_key[40] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

struct cq_poller {
	volatile uint32_t *buf;	/* 16 dwords per CQE */
	uint32_t count;
	uint64_t head;		/* consumer index, starts at count */
};

struct app {
	const char *devname;
	bool shared_db;
	bool coalesce;
	int max_qp_wr;		/* what query_device must report */
	int queue_max;		/* the deepest CQ the provider must take (hardware.md §2.3) */
	struct ibv_context *ctx;
	struct ibv_pd *pd, *ppd;
	struct ibv_mr *mr;
	uint8_t *mem;		/* RX buffers, then TX frames */
	size_t mem_len;
	uint8_t mac[6];
	unsigned int allocs;	/* ring buffers handed out by our allocator */
	void *alloc_ptr[8];
	/* TX */
	struct ibv_cq *txcq;
	struct ibv_qp *txqp;
	struct manadv_qp mqp;
	struct manadv_cq mtxcq;
	uint32_t sq_head_bu;
	/* RX */
	struct ibv_comp_channel *chan;
	struct ibv_cq *rxcq;
	struct ibv_wq *wq;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *rssqp;
	struct manadv_rwq mrwq;
	struct manadv_cq mrxcq;
	uint32_t rq_head_bu;
	volatile uint8_t *cmd_page;	/* mmap(cmd_fd, 0) in shared mode */
	uint8_t sent[TX_FRAMES][FRAME_LEN];
};

/* ---- ring memory: the application allocator manadv requires ----------- */

static void *
app_alloc(size_t size, void *priv)
{
	struct app *a = priv;
	void *p = NULL;

	if (posix_memalign(&p, 4096, size) != 0)
		return NULL;
	memset(p, 0, size);
	if (a->allocs < 8)
		a->alloc_ptr[a->allocs] = p;
	a->allocs++;
	return p;
}

static void
app_free(void *ptr, void *priv)
{
	(void)priv;
	free(ptr);
}

static bool
from_app_allocator(const struct app *a, const void *p)
{
	for (unsigned int i = 0; i < a->allocs && i < 8; i++)
		if (a->alloc_ptr[i] == p)
			return true;
	return false;
}

/* ---- helpers ----------------------------------------------------------- */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
ring_doorbell(volatile uint8_t *page, unsigned int off, uint32_t id, uint32_t low_hi,
	      uint32_t tail, bool arm)
{
	uint64_t v = (uint64_t)(id & 0xFFFFFF) | (uint64_t)(low_hi & 0xFF) << 24 |
		     (uint64_t)tail << 32 | (arm ? 1ull << 63 : 0);

	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint64_t *)(page + off) = v;
}

static volatile uint8_t *
db_of(const struct app *a, void *queue_page)
{
	return a->shared_db ? a->cmd_page : queue_page;
}

/* Next CQE (16 dwords copied out) or false after the timeout. */
static bool
cq_next(struct cq_poller *p, uint32_t cqe[16])
{
	uint64_t deadline = now_ms() + TIMEOUT_MS;
	uint32_t slot = (uint32_t)(p->head % p->count);
	uint32_t want = (uint32_t)(p->head / p->count) & 7;
	uint32_t old = (uint32_t)(p->head / p->count - 1) & 7;

	for (;;) {
		uint32_t owner = p->buf[slot * 16 + 15] >> 29;

		if (owner == want)
			break;
		if (owner != old) {
			fprintf(stderr, "CQ overflow: owner %u, expected %u\n", owner, want);
			return false;
		}
		if (now_ms() > deadline)
			return false;
		usleep(100);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (unsigned int i = 0; i < 16; i++)
		cqe[i] = p->buf[slot * 16 + i];
	p->head++;
	return true;
}

static uint32_t
toeplitz(const uint8_t *in, unsigned int len)
{
	uint32_t hash = 0;
	uint32_t window = (uint32_t)rss_key[0] << 24 | (uint32_t)rss_key[1] << 16 |
			  (uint32_t)rss_key[2] << 8 | rss_key[3];

	for (unsigned int i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= window;
			window <<= 1;
			if (i + 4 < sizeof(rss_key) && (rss_key[i + 4] & (1u << b)))
				window |= 1;
		}
	}
	return hash;
}

static uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

/* Ethernet + IPv4 + UDP, UDP checksum seeded with the pseudo header only. */
static void
build_frame(const struct app *a, uint8_t *f, unsigned int idx)
{
	uint16_t udp_len = FRAME_LEN - 14 - 20;
	uint32_t sum;

	memset(f, 0, FRAME_LEN);
	memcpy(f, a->mac, 6);
	memcpy(f + 6, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x42 }, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)((FRAME_LEN - 14) >> 8);
	f[17] = (uint8_t)(FRAME_LEN - 14);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, (const uint8_t[]){ 198, 18, 0, 1 }, 4);
	memcpy(f + 30, (const uint8_t[]){ 198, 19, (uint8_t)idx, 2 }, 4);
	f[34] = (uint8_t)((1000 + idx) >> 8);
	f[35] = (uint8_t)(1000 + idx);
	f[36] = 0x12;
	f[37] = 0xB5;
	f[38] = (uint8_t)(udp_len >> 8);
	f[39] = (uint8_t)udp_len;
	for (unsigned int i = 42; i < FRAME_LEN; i++)
		f[i] = (uint8_t)(i * 7 + idx);
	/* pseudo header: addresses, protocol, UDP length (not complemented) */
	sum = csum_add(0, f + 26, 8) + 17 + udp_len;
	sum = csum_fold(sum);
	f[40] = (uint8_t)(sum >> 8);
	f[41] = (uint8_t)sum;
}

static bool
frame_checksums_ok(const uint8_t *f, unsigned int len)
{
	uint16_t udp_len = (uint16_t)(f[38] << 8 | f[39]);
	uint32_t sum;

	if (len < 42 || csum_fold(csum_add(0, f + 14, 20)) != 0xFFFF)
		return false;
	sum = csum_add(0, f + 26, 8) + 17 + udp_len;
	sum = csum_add(sum, f + 34, udp_len);
	return csum_fold(sum) == 0xFFFF;
}

/* ---- device, ABI and unsupported verbs --------------------------------- */

static void
read_port_mac(struct app *a, const struct ibv_device *dev)
{
	char path[600], line[64];
	struct dirent *de;
	DIR *d;
	bool found = false;

	snprintf(path, sizeof(path), "%s/device/net", dev->ibdev_path);
	d = opendir(path);
	REQUIRE(d != NULL, "no %s (ibdev_path tree)", path);
	while ((de = readdir(d)) != NULL && !found) {
		char f[900];
		unsigned int port = 99, m[6];
		FILE *fp;

		if (de->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s/dev_port", path, de->d_name);
		fp = fopen(f, "r");
		if (fp == NULL)
			continue;
		if (fscanf(fp, "%u", &port) != 1)
			port = 99;
		fclose(fp);
		if (port != 0)
			continue;
		snprintf(f, sizeof(f), "%s/%s/address", path, de->d_name);
		fp = fopen(f, "r");
		if (fp != NULL && fgets(line, sizeof(line), fp) != NULL &&
		    sscanf(line, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
			   &m[5]) == 6) {
			for (int i = 0; i < 6; i++)
				a->mac[i] = (uint8_t)m[i];
			found = true;
		}
		if (fp != NULL)
			fclose(fp);
	}
	closedir(d);
	REQUIRE(found, "no MAC for port 0 under %s", path);
}

static void
open_device(struct app *a)
{
	struct ibv_device **list;
	struct ibv_device *dev = NULL;
	struct verbs_context *vctx;
	int n = -1;

	list = ibv_get_device_list(&n);
	REQUIRE(list != NULL, "ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), a->devname) == 0)
			dev = list[i];
	REQUIRE(dev != NULL, "device %s not listed (%d devices)", a->devname, n);
	read_port_mac(a, dev);
	a->ctx = ibv_open_device(dev);
	REQUIRE(a->ctx != NULL, "ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(list);

	CHECK(a->ctx->abi_compat == (void *)UINTPTR_MAX, "abi_compat %p", a->ctx->abi_compat);
	vctx = verbs_get_ctx(a->ctx);
	REQUIRE(vctx != NULL, "verbs_get_ctx() refused the context");
	CHECK(vctx->sz == sizeof(struct verbs_context), "verbs_context.sz %zu", vctx->sz);
	CHECK(vctx->create_wq != NULL && vctx->create_qp_ex != NULL &&
	      vctx->create_rwq_ind_table != NULL && vctx->alloc_parent_domain != NULL,
	      "verbs_context ops missing");
}

static void
check_queries(struct app *a)
{
	struct ibv_device_attr_ex ex;
	struct ibv_device_attr legacy;
	struct ibv_port_attr port;
	int rc;

	rc = ibv_query_device_ex(a->ctx, NULL, &ex);
	REQUIRE(rc == 0, "ibv_query_device_ex: %d", rc);
	CHECK(ex.orig_attr.max_qp_wr == a->max_qp_wr && ex.orig_attr.max_cqe == a->max_qp_wr,
	      "max_qp_wr %d max_cqe %d, want %d", ex.orig_attr.max_qp_wr, ex.orig_attr.max_cqe,
	      a->max_qp_wr);
	CHECK(ex.orig_attr.max_sge == 15, "max_sge %d", ex.orig_attr.max_sge);
	CHECK(ex.orig_attr.phys_port_cnt >= 1, "phys_port_cnt %u", ex.orig_attr.phys_port_cnt);
	CHECK(ex.orig_attr.vendor_part_id == 0 ||
	      (ex.orig_attr.vendor_part_id == 2 && ex.raw_packet_caps != 0),
	      "vendor_part_id %u raw_packet_caps %#x", ex.orig_attr.vendor_part_id,
	      ex.raw_packet_caps);
	rc = ibv_query_device(a->ctx, &legacy);
	CHECK(rc == 0 && legacy.max_qp_wr == a->max_qp_wr &&
	      legacy.phys_port_cnt == ex.orig_attr.phys_port_cnt, "ibv_query_device %d", rc);
	rc = ibv_query_port(a->ctx, 1, &port);
	CHECK(rc == 0 && port.link_layer == IBV_LINK_LAYER_ETHERNET &&
	      port.state == IBV_PORT_ACTIVE, "ibv_query_port %d state %d", rc, port.state);
	CHECK(ibv_query_port(a->ctx, 9, &port) != 0, "query_port(9) accepted");
}

/* What rdma-core answers for verbs MANA does not have (hardware.md §7.1, §14 #13). */
static void
check_unsupported(struct app *a)
{
	struct ibv_cq_init_attr_ex cqx = { .cqe = 16 };
	struct ibv_td_init_attr td = { 0 };
	struct ibv_ah_attr ah = { .port_num = 1 };
	struct ibv_wq_attr wqa = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	struct ibv_qp_attr qpa = { .qp_state = IBV_QPS_RTR };
	struct ibv_send_wr swr = { 0 }, *bad_s = NULL;
	struct ibv_wc wc;
	union ibv_gid gid;

	errno = 0;
	CHECK(ibv_create_cq_ex(a->ctx, &cqx) == NULL && errno == EOPNOTSUPP,
	      "create_cq_ex errno %d", errno);
	errno = 0;
	CHECK(ibv_alloc_td(a->ctx, &td) == NULL && errno == EOPNOTSUPP, "alloc_td errno %d",
	      errno);
	errno = 0;
	CHECK(ibv_create_ah(a->pd, &ah) == NULL && errno == EOPNOTSUPP, "create_ah errno %d",
	      errno);
	CHECK(ibv_query_gid(a->ctx, 1, 0, &gid) == -1 && errno == EOPNOTSUPP,
	      "query_gid errno %d", errno);
	CHECK(ibv_modify_wq(a->wq, &wqa) == EOPNOTSUPP, "modify_wq");
	CHECK(ibv_modify_qp(a->txqp, &qpa, IBV_QP_STATE) == EOPNOTSUPP, "modify_qp");
	/* rdma-core's poll_cq of MANA returns the positive errno (hardware.md §7.1) */
	CHECK(ibv_poll_cq(a->txcq, 1, &wc) == EOPNOTSUPP, "poll_cq");
	CHECK(ibv_req_notify_cq(a->rxcq, 0) == EOPNOTSUPP, "req_notify_cq");
	CHECK(ibv_post_send(a->txqp, &swr, &bad_s) == EOPNOTSUPP, "post_send");
}

/* ---- object creation ---------------------------------------------------- */

static void
create_common(struct app *a)
{
	struct manadv_ctx_allocators al = { app_alloc, app_free, a };
	struct ibv_parent_domain_init_attr pda = { 0 };
	struct ibv_mr *mr2;

	/* No allocator yet: libmana 44 refuses every queue (hardware.md §14 #2). */
	errno = 0;
	CHECK(ibv_create_cq(a->ctx, RING_N, NULL, NULL, 0) == NULL && errno == EINVAL,
	      "create_cq without allocator: errno %d", errno);
	CHECK(manadv_set_context_attr(a->ctx, (enum manadv_set_ctx_attr_type)7, &al) ==
	      EOPNOTSUPP, "set_context_attr type 7");
	REQUIRE(manadv_set_context_attr(a->ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &al) == 0,
		"manadv_set_context_attr");

	a->pd = ibv_alloc_pd(a->ctx);
	REQUIRE(a->pd != NULL && a->pd->context == a->ctx, "ibv_alloc_pd: %s", strerror(errno));
	pda.pd = a->pd;
	pda.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pda.pd_context = (void *)1;	/* IB port 1, as DPDK passes it */
	a->ppd = ibv_alloc_parent_domain(a->ctx, &pda);
	REQUIRE(a->ppd != NULL, "ibv_alloc_parent_domain: %s", strerror(errno));

	a->mem_len = (size_t)(RX_POSTED + TX_FRAMES + 1) * BUF_SIZE;
	REQUIRE(posix_memalign((void **)&a->mem, 4096, a->mem_len) == 0, "memory");
	memset(a->mem, 0, a->mem_len);
	/* constant access: ibv_reg_mr@IBVERBS_1.1 */
	a->mr = ibv_reg_mr(a->pd, a->mem, a->mem_len, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(a->mr != NULL, "ibv_reg_mr: %s", strerror(errno));
	CHECK(a->mr->addr == a->mem && a->mr->length == a->mem_len && a->mr->pd == a->pd,
	      "ibv_mr fields");
	/* optional access bit: the inline goes to ibv_reg_mr_iova2@IBVERBS_1.8 */
	mr2 = ibv_reg_mr(a->pd, a->mem, 4096, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_RELAXED_ORDERING);
	CHECK(mr2 != NULL, "ibv_reg_mr (iova2 path): %s", strerror(errno));
	if (mr2 != NULL)
		CHECK(ibv_dereg_mr(mr2) == 0, "dereg mr2");
}

static void
create_tx(struct app *a)
{
	struct ibv_qp_init_attr qpa = { 0 };
	struct manadv_obj obj = { 0 };

	errno = 0;
	CHECK(ibv_create_cq(a->ctx, a->queue_max + 1, NULL, NULL, 0) == NULL && errno == EINVAL,
	      "cqe %d accepted (errno %d)", a->queue_max + 1, errno);
	a->txcq = ibv_create_cq(a->ctx, a->queue_max, NULL, NULL, 0);
	REQUIRE(a->txcq != NULL, "cqe %d: %s", a->queue_max, strerror(errno));
	CHECK(ibv_destroy_cq(a->txcq) == 0, "destroy the deepest CQ");
	a->txcq = ibv_create_cq(a->ctx, RING_N, NULL, NULL, 0);
	REQUIRE(a->txcq != NULL, "TX ibv_create_cq: %s", strerror(errno));
	qpa.send_cq = a->txcq;
	qpa.recv_cq = a->txcq;
	qpa.cap.max_send_wr = RING_N;
	qpa.cap.max_send_sge = 1;
	qpa.qp_type = IBV_QPT_RAW_PACKET;
	errno = 0;
	CHECK(ibv_create_qp(a->pd, &qpa) == NULL && errno == EINVAL,
	      "RAW QP on a plain PD accepted (errno %d)", errno);
	a->txqp = ibv_create_qp(a->ppd, &qpa);
	REQUIRE(a->txqp != NULL, "TX ibv_create_qp: %s", strerror(errno));

	CHECK(manadv_init_obj(&obj, 8) == EINVAL, "init_obj type 8");
	obj.qp.in = a->txqp;
	obj.qp.out = &a->mqp;
	obj.cq.in = a->txcq;
	obj.cq.out = &a->mtxcq;
	REQUIRE(manadv_init_obj(&obj, MANADV_OBJ_QP | MANADV_OBJ_CQ) == 0, "init_obj QP|CQ");
	/* 256 x 32 B WQEs (1 SGE) -> 8 KiB (hardware.md §2.2) */
	CHECK(a->mqp.sq_count == RING_N && a->mqp.sq_size == 8192, "sq count %u size %u",
	      a->mqp.sq_count, a->mqp.sq_size);
	CHECK(from_app_allocator(a, a->mqp.sq_buf) && from_app_allocator(a, a->mtxcq.buf),
	      "TX rings not from the application allocator");
	CHECK(a->mqp.sq_id != 0 && a->mtxcq.cq_id != 0 && a->mtxcq.count == RING_N,
	      "sq_id %u cq_id %u count %u", a->mqp.sq_id, a->mtxcq.cq_id, a->mtxcq.count);
	REQUIRE(a->mqp.db_page != NULL, "no SQ doorbell page");
}

static void
create_rx(struct app *a)
{
	struct ibv_wq_init_attr wqa = { 0 };
	struct ibv_rwq_ind_table_init_attr ia = { 0 };
	struct ibv_qp_init_attr_ex qpx = { 0 };
	struct manadv_obj obj = { 0 };

	a->chan = ibv_create_comp_channel(a->ctx);
	REQUIRE(a->chan != NULL, "ibv_create_comp_channel: %s", strerror(errno));
	a->rxcq = ibv_create_cq(a->ctx, RING_N, (void *)0x1234, a->chan, 0);
	REQUIRE(a->rxcq != NULL, "RX ibv_create_cq: %s", strerror(errno));
	CHECK(a->rxcq->cq_context == (void *)0x1234 && a->rxcq->channel == a->chan,
	      "ibv_cq fields");
	wqa.wq_type = IBV_WQT_RQ;
	wqa.max_wr = RING_N;
	wqa.max_sge = 1;
	wqa.pd = a->ppd;
	wqa.cq = a->rxcq;
	a->wq = ibv_create_wq(a->ctx, &wqa);
	REQUIRE(a->wq != NULL, "ibv_create_wq: %s", strerror(errno));
	ia.log_ind_tbl_size = 0;
	ia.ind_tbl = &a->wq;
	a->ind = ibv_create_rwq_ind_table(a->ctx, &ia);
	REQUIRE(a->ind != NULL, "ibv_create_rwq_ind_table: %s", strerror(errno));

	qpx.qp_type = IBV_QPT_RAW_PACKET;
	qpx.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
			IBV_QP_INIT_ATTR_RX_HASH;
	qpx.pd = a->ppd;
	qpx.rwq_ind_tbl = a->ind;
	qpx.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qpx.rx_hash_conf.rx_hash_key_len = 39;
	qpx.rx_hash_conf.rx_hash_key = (uint8_t *)rss_key;
	qpx.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
		IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	errno = 0;
	CHECK(ibv_create_qp_ex(a->ctx, &qpx) == NULL && errno == EINVAL,
	      "39-byte RSS key accepted (errno %d)", errno);
	qpx.rx_hash_conf.rx_hash_key_len = sizeof(rss_key);
	a->rssqp = ibv_create_qp_ex(a->ctx, &qpx);
	REQUIRE(a->rssqp != NULL, "RSS ibv_create_qp_ex: %s", strerror(errno));

	obj.cq.in = a->rxcq;
	obj.cq.out = &a->mrxcq;
	obj.rwq.in = a->wq;
	obj.rwq.out = &a->mrwq;
	REQUIRE(manadv_init_obj(&obj, MANADV_OBJ_CQ | MANADV_OBJ_RWQ) == 0, "init_obj CQ|RWQ");
	CHECK(a->mrwq.count == RING_N && a->mrwq.size == 8192 && a->mrwq.wq_id != 0,
	      "rwq count %u size %u id %u", a->mrwq.count, a->mrwq.size, a->mrwq.wq_id);
	CHECK(a->mrxcq.cq_id != 0 && a->mrxcq.cq_id != a->mtxcq.cq_id, "rx cq_id %u",
	      a->mrxcq.cq_id);
	CHECK(from_app_allocator(a, a->mrwq.buf) && from_app_allocator(a, a->mrxcq.buf),
	      "RX rings not from the application allocator");
	REQUIRE(a->mrwq.db_page != NULL, "no RQ doorbell page");
	if (a->shared_db)
		CHECK(a->mrwq.db_page == a->mqp.db_page, "shared mode: different pages");
	else
		CHECK(a->mrwq.db_page != a->mqp.db_page, "queue mode: one page");
}

/* Objects in use cannot be destroyed (hardware.md §14 #12). */
static void
check_busy(struct app *a)
{
	CHECK(ibv_destroy_cq(a->rxcq) == EBUSY, "destroy_cq of a CQ in use");
	CHECK(ibv_destroy_wq(a->wq) == EBUSY, "destroy_wq of a WQ in a table");
	CHECK(ibv_destroy_rwq_ind_table(a->ind) == EBUSY, "destroy of a table in use");
	CHECK(ibv_destroy_comp_channel(a->chan) == EBUSY, "destroy of a channel in use");
	CHECK(ibv_close_device(a->ctx) == EBUSY, "close_device with live objects");
}

/* ---- datapath by hand --------------------------------------------------- */

/* One 32-byte WQE: 8 B header, 8 B inline OOB, one 16 B SGE (hardware.md §3.1). */
static void
write_wqe(uint8_t *ring, uint32_t ring_size, uint32_t head_bu, uint32_t oob0, uint32_t oob1,
	  uint64_t addr, uint32_t lkey, uint32_t len)
{
	uint32_t *w = (uint32_t *)(ring + (((uint64_t)head_bu * 32) & (ring_size - 1)));

	w[0] = 0;
	w[1] = 1u | 2u << 8;	/* num_sge 1, inline OOB 8 bytes */
	w[2] = oob0;
	w[3] = oob1;
	memcpy(&w[4], &addr, 8);
	w[6] = lkey;
	w[7] = len;
}

static void
post_rx(struct app *a)
{
	for (unsigned int i = 0; i < RX_POSTED; i++) {
		write_wqe(a->mrwq.buf, a->mrwq.size, a->rq_head_bu, 0, 0,
			  (uintptr_t)(a->mem + (size_t)i * BUF_SIZE), a->mr->lkey, BUF_SIZE);
		a->rq_head_bu++;
	}
	/* wqe_cnt 0, tail = producer bytes (hardware.md §5.2) */
	ring_doorbell(db_of(a, a->mrwq.db_page), DB_RQ, a->mrwq.wq_id, 0, a->rq_head_bu * 32,
		      false);
	/* arm the RX CQ (on the RWQ's page, hardware.md §1.2) for one event */
	ring_doorbell(db_of(a, a->mrwq.db_page), DB_CQ, a->mrxcq.cq_id, 0,
		      (uint32_t)(a->mrxcq.count % (a->mrxcq.count << 3)), true);
}

static void
post_tx(struct app *a)
{
	uint8_t *txmem = a->mem + (size_t)RX_POSTED * BUF_SIZE;
	uint32_t oob0 = 0u << 0 | 1u << 2 | 1u << 4 | 1u << 6 | (a->mtxcq.cq_id & 0xFFFFFF) << 8;
	uint32_t oob1 = ((a->mqp.sq_id >> 10) & 0x3FFF) << 10 | (a->mqp.tx_vp_offset & 0xFF) << 24;

	for (unsigned int i = 0; i < TX_FRAMES; i++) {
		uint8_t *f = txmem + (size_t)i * FRAME_LEN;

		build_frame(a, f, i);
		memcpy(a->sent[i], f, FRAME_LEN);
		write_wqe(a->mqp.sq_buf, a->mqp.sq_size, a->sq_head_bu, oob0, oob1,
			  (uintptr_t)f, a->mr->lkey, FRAME_LEN);
		a->sq_head_bu++;
	}
	/* a last WQE whose SGE names no MR: an error CQE, not a frame (14 #18) */
	write_wqe(a->mqp.sq_buf, a->mqp.sq_size, a->sq_head_bu, oob0, oob1, (uintptr_t)txmem,
		  a->mr->lkey ^ 0x5A5A5A5A, FRAME_LEN);
	a->sq_head_bu++;
	ring_doorbell(db_of(a, a->mqp.db_page), DB_SQ, a->mqp.sq_id, 0, a->sq_head_bu * 32,
		      false);
}

static void
check_tx_completions(struct app *a)
{
	struct cq_poller p = { (volatile uint32_t *)a->mtxcq.buf, a->mtxcq.count,
			       a->mtxcq.count };
	uint32_t cqe[16];

	for (unsigned int i = 0; i <= TX_FRAMES; i++) {
		uint32_t type, want = i < TX_FRAMES ? CQE_TX_OKAY : CQE_TX_HDR_PROCESSING_ERROR;

		REQUIRE(cq_next(&p, cqe), "TX CQE %u missing", i);
		type = cqe[0] & 0x3F;
		CHECK(type == want, "TX CQE %u type %u, want %u", i, type, want);
		CHECK((cqe[15] & 0xFFFFFF) == a->mqp.sq_id && (cqe[15] >> 24 & 1) == 1,
		      "TX CQE %u wq_num %#x", i, cqe[15]);
		if (type == CQE_TX_HDR_PROCESSING_ERROR)
			CHECK(cqe[0] >> 8 != 0, "error CQE without vendor_err");
	}
}

/* One received packet against the frame sent with the same UDP source port. */
static void
check_rx_packet(struct app *a, const uint8_t *buf, uint32_t len, uint32_t dw1, uint32_t hash,
		bool *seen)
{
	unsigned int idx = (unsigned int)((buf[34] << 8 | buf[35]) - 1000);
	uint8_t tuple[12];

	REQUIRE(idx < TX_FRAMES && !seen[idx], "unexpected or duplicate frame (sport %u)",
		buf[34] << 8 | buf[35]);
	seen[idx] = true;
	CHECK(len == FRAME_LEN, "frame %u length %u", idx, len);
	CHECK(frame_checksums_ok(buf, len), "frame %u: checksums not completed by TX", idx);
	/* identical apart from the two checksum fields the device wrote */
	CHECK(memcmp(buf, a->sent[idx], 24) == 0 && memcmp(buf + 26, a->sent[idx] + 26, 14) == 0 &&
	      memcmp(buf + 42, a->sent[idx] + 42, FRAME_LEN - 42) == 0, "frame %u corrupted", idx);
	CHECK((dw1 >> 16 & 0x1FF) == HASH_L4, "frame %u rx_hashtype %#x", idx, dw1 >> 16 & 0x1FF);
	CHECK((dw1 >> 25 & 1) && (dw1 >> 29 & 1), "frame %u checksum-ok bits %#x", idx, dw1);
	memcpy(tuple, buf + 26, 8);
	memcpy(tuple + 8, buf + 34, 4);
	CHECK(hash == toeplitz(tuple, sizeof(tuple)), "frame %u hash %#x, want %#x", idx, hash,
	      toeplitz(tuple, sizeof(tuple)));
}

static void
check_rx_completions(struct app *a)
{
	struct cq_poller p = { (volatile uint32_t *)a->mrxcq.buf, a->mrxcq.count,
			       a->mrxcq.count };
	bool seen[TX_FRAMES] = { false };
	unsigned int got = 0, wqe = 0, coalesced = 0;
	uint32_t cqe[16];

	while (got < TX_FRAMES) {
		uint32_t type;
		unsigned int n;

		REQUIRE(cq_next(&p, cqe), "RX CQE missing after %u frames", got);
		type = cqe[0] & 0x3F;
		CHECK((cqe[15] & 0xFFFFFF) == a->mrwq.wq_id && (cqe[15] >> 24 & 1) == 0,
		      "RX CQE wq_num %#x", cqe[15]);
		REQUIRE(type == CQE_RX_OKAY || (type == CQE_RX_COALESCED_4 && a->coalesce),
			"RX CQE type %u (coalescing %s)", type, a->coalesce ? "on" : "off");
		n = type == CQE_RX_OKAY ? 1 : 4;
		coalesced += type == CQE_RX_COALESCED_4;
		for (unsigned int i = 0; i < n && got < TX_FRAMES; i++) {
			uint32_t len = cqe[2 + 3 * i] & 0xFFFF;

			if (len == 0)
				break;	/* a zero length ends a coalesced CQE */
			/* each packet consumed the next posted WQE, in order */
			check_rx_packet(a, a->mem + (size_t)wqe * BUF_SIZE, len, cqe[1],
					cqe[4 + 3 * i], seen);
			wqe++;
			got++;
		}
	}
	printf("verbs_compat: %u frames received in %u coalesced CQEs + %u single CQEs\n",
	       got, coalesced, (unsigned int)(p.head - p.count) - coalesced);
}

static void
check_cq_event(struct app *a)
{
	struct pollfd pfd = { .fd = a->chan->fd, .events = POLLIN };
	struct ibv_cq *cq = NULL;
	void *cq_ctx = NULL;

	CHECK(poll(&pfd, 1, TIMEOUT_MS) == 1, "no CQ event on the channel fd");
	CHECK(ibv_get_cq_event(a->chan, &cq, &cq_ctx) == 0, "ibv_get_cq_event: %s",
	      strerror(errno));
	CHECK(cq == a->rxcq && cq_ctx == (void *)0x1234, "event for cq %p ctx %p", (void *)cq,
	      cq_ctx);
	if (cq != NULL)
		ibv_ack_cq_events(cq, 1);
	/* one event per arm (hardware.md §14 #26) */
	CHECK(poll(&pfd, 1, 100) == 0, "a second event without a new arm");
}

static void
teardown(struct app *a)
{
	CHECK(ibv_destroy_qp(a->rssqp) == 0, "destroy RSS QP");
	CHECK(ibv_destroy_rwq_ind_table(a->ind) == 0, "destroy ind table");
	CHECK(ibv_destroy_wq(a->wq) == 0, "destroy WQ");
	CHECK(ibv_destroy_cq(a->rxcq) == 0, "destroy RX CQ");
	CHECK(ibv_destroy_comp_channel(a->chan) == 0, "destroy channel");
	CHECK(ibv_destroy_qp(a->txqp) == 0, "destroy TX QP");
	CHECK(ibv_destroy_cq(a->txcq) == 0, "destroy TX CQ");
	CHECK(ibv_dereg_mr(a->mr) == 0, "dereg MR");
	CHECK(ibv_dealloc_pd(a->ppd) == 0, "dealloc parent domain");
	CHECK(ibv_dealloc_pd(a->pd) == 0, "dealloc PD");
	if (a->cmd_page != NULL)
		munmap((void *)a->cmd_page, 4096);
	CHECK(ibv_close_device(a->ctx) == 0, "close device");
	free(a->mem);
}

static void
usage(void)
{
	fprintf(stderr, "usage: verbs_compat --device NAME [--doorbell queue|shared] "
		"[--coalesce 0|1] [--max-qp-wr K] [--queue-max R]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct app a = { .coalesce = true, .max_qp_wr = 2048, .queue_max = 2048 };

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "--device") == 0)
			a.devname = argv[++i];
		else if (strcmp(argv[i], "--doorbell") == 0)
			a.shared_db = strcmp(argv[++i], "shared") == 0;
		else if (strcmp(argv[i], "--coalesce") == 0)
			a.coalesce = strcmp(argv[++i], "0") != 0;
		else if (strcmp(argv[i], "--max-qp-wr") == 0)
			a.max_qp_wr = atoi(argv[++i]);
		else if (strcmp(argv[i], "--queue-max") == 0)
			a.queue_max = atoi(argv[++i]);
		else
			usage();
	}
	if (a.devname == NULL)
		usage();
	open_device(&a);
	check_queries(&a);
	if (a.shared_db) {
		/* hardware: the context's doorbell page is cmd_fd's page 0 (5.1) */
		void *p = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, a.ctx->cmd_fd, 0);

		REQUIRE(p != MAP_FAILED, "mmap(cmd_fd, 0): %s", strerror(errno));
		a.cmd_page = p;
	}
	create_common(&a);
	create_tx(&a);
	create_rx(&a);
	check_unsupported(&a);
	check_busy(&a);
	post_rx(&a);
	post_tx(&a);
	check_tx_completions(&a);
	check_rx_completions(&a);
	check_cq_event(&a);
	teardown(&a);
	if (check_fails != 0) {
		printf("verbs_compat: %u check(s) failed\n", check_fails);
		return 1;
	}
	printf("verbs_compat: all checks passed (doorbell %s, coalescing %s)\n",
	       a.shared_db ? "shared" : "per queue", a.coalesce ? "on" : "off");
	return 0;
}
