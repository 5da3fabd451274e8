/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * What one doorbell costs the ringing thread on the software device: a plain
 * store to a per-queue page (doorbell=object) against a trapped store to the
 * shared page (doorbell=shared, doc/design.md "Doorbell modes"). The engine runs
 * on its own thread; the figure is wall time on the ringing thread divided by
 * the stores. In shared mode the device must take every store (exit status 1
 * otherwise); in object mode it reads what the slot holds when it looks.
 *
 * usage: doorbell_cost [stores]     (default 200000)
 * Prints one line per mode, the floor of a bare write fault on this machine
 * (what any trapping design pays) and the ratio.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mana_gdma.h"
#include "mana_vs.h"
#include "mana_model.h"

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *
ring_alloc(size_t size, void *data)
{
	size_t n = (size + 4095) & ~(size_t)4095;
	void *p = aligned_alloc(4096, n == 0 ? 4096 : n);

	(void)data;
	if (p != NULL)
		memset(p, 0, n == 0 ? 4096 : n);
	return p;
}

static void
ring_free(void *p, void *data)
{
	(void)data;
	free(p);
}

static uint64_t
engine_doorbells(struct mana_model *m)
{
	struct mana_model_engine_stats es;

	memset(&es, 0, sizeof(es));
	if (mana_model_engine_stats(m, &es) != 0)
		return 0;
	return es.doorbells;
}

#if defined(__x86_64__)
/* The floor: a bare write fault and a handler that only skips the store. */
static void
skip_store(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_RIP] += 7;	/* movq %reg, 0x100(%reg): 48 89 xx 00 01 00 00 */
}

static double
fault_floor(unsigned int n)
{
	struct sigaction sa, old;
	uint8_t *page;
	double t0, t1;

	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = skip_store;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	t0 = now_ns();
	for (unsigned int i = 0; i < n; i++)
		__asm__ volatile("movq %1, 0x100(%0)" : : "r"(page), "r"((uint64_t)i) : "memory");
	t1 = now_ns();
	sigaction(SIGSEGV, &old, NULL);
	munmap(page, 4096);
	return (t1 - t0) / n;
}
#else
static double
fault_floor(unsigned int n)
{
	(void)n;
	return -1;
}
#endif

/* ns per doorbell on the ringing thread, or a negative value on error. */
static double
measure(bool shared, unsigned int n, uint64_t *taken)
{
	struct mana_model_config cfg;
	struct ibv_qp_init_attr qa;
	struct manadv_obj obj;
	struct manadv_qp dqp;
	struct manadv_cq dcq;
	struct ibv_parent_domain_init_attr pa;
	struct ibv_context *ctx;
	struct mana_model *m;
	struct ibv_pd *pd, *ppd = NULL;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	double t0, t1, ns = -1;
	uint64_t base;
	volatile uint64_t *slot;

	mana_model_config_init(&cfg, shared ? "dbcost_shared" : "dbcost_object");
	cfg.shared_doorbell = shared;
	cfg.wire[0].type = MANA_MODEL_WIRE_NONE;
	m = mana_vs_model_create(&cfg);
	if (m == NULL)
		return -1;
	ctx = mana_vs_open_device(mana_model_ibv_device(m));
	if (ctx != NULL) {
		/* as DPDK does: queue rings from the application's allocator */
		struct manadv_ctx_allocators a = { .alloc = ring_alloc, .free = ring_free };

		mana_vs_set_context_attr(ctx, MANADV_CTX_ATTR_BUF_ALLOCATORS, &a);
	}
	pd = ctx != NULL ? mana_vs_alloc_pd(ctx) : NULL;
	if (pd != NULL) {
		/* the QP's vPort: the parent domain's pd_context, IB port 1 */
		memset(&pa, 0, sizeof(pa));
		pa.pd = pd;
		pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
		pa.pd_context = (void *)(uintptr_t)1;
		ppd = mana_vs_alloc_parent_domain(ctx, &pa);
	}
	cq = ppd != NULL ? mana_vs_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	qp = NULL;
	if (cq != NULL) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = IBV_QPT_RAW_PACKET;
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.cap.max_send_wr = 64;
		qa.cap.max_send_sge = 1;
		qp = mana_vs_create_qp(ppd, &qa);
	}
	if (qp == NULL) {
		fprintf(stderr, "doorbell_cost: device setup failed: %s (%s)\n", strerror(errno),
			mana_model_last_error(m));
		goto out;
	}
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = &dqp;
	obj.cq.in = cq;
	obj.cq.out = &dcq;
	if (mana_vs_init_obj(&obj, MANADV_OBJ_QP | MANADV_OBJ_CQ) != 0)
		goto out;
	/* CQ doorbells without arm: taken and checked by the device, no other work. */
	slot = (volatile uint64_t *)(void *)((uint8_t *)dqp.db_page + GDMA_DB_OFFSET_CQ);
	base = engine_doorbells(m);
	t0 = now_ns();
	for (unsigned int i = 0; i < n; i++)
		*slot = ((uint64_t)(i & 0xFFFF) << GDMA_DB_TAIL_SHIFT) | dcq.cq_id;
	t1 = now_ns();
	/* shared: every store is taken; object: the slot keeps only the last one */
	for (unsigned int w = 0; w < 10000 && engine_doorbells(m) - base < n; w++) {
		if (!shared && *slot == 0)
			break;
		usleep(1000);
	}
	*taken = engine_doorbells(m) - base;
	ns = (t1 - t0) / n;
out:
	if (qp != NULL)
		mana_vs_destroy_qp(qp);
	if (cq != NULL)
		mana_vs_destroy_cq(cq);
	if (ppd != NULL)
		mana_vs_dealloc_pd(ppd);
	if (pd != NULL)
		mana_vs_dealloc_pd(pd);
	if (ctx != NULL)
		mana_vs_close_device(ctx);
	mana_vs_model_destroy(m);
	return ns;
}

int
main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 200000;
	uint64_t got_o = 0, got_s = 0;
	double o, s, f;

	if (n == 0) {
		fprintf(stderr, "usage: doorbell_cost [stores]\n");
		return 2;
	}
	f = fault_floor(n);
	o = measure(false, n, &got_o);
	s = measure(true, n, &got_s);
	if (o < 0 || s < 0)
		return 1;
	printf("doorbell object: %.1f ns per doorbell (%u plain stores; the device read %"
	       PRIu64 " of them, the slot keeps the last)\n", o, n, got_o);
	printf("doorbell shared: %.1f ns per doorbell (%u stores, trapped and queued; %"
	       PRIu64 " taken)\n", s, n, got_s);
	if (f > 0)
		printf("doorbell fault floor: %.1f ns per store (a bare write fault and a handler "
		       "that skips the store, no device)\n", f);
	printf("doorbell shared/object: %.0f\n", s / o);
	return got_s == n ? 0 : 1;
}
