/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Completion events and doorbells on a model device: CQ arming through the
 * RWQ's and the QP's doorbell page, one event per arm (hardware.md §5.4, §14 #26),
 * and doorbells naming a queue of another page refused (14 #15); the
 * lossless shared doorbell page (doc/design.md, "Doorbell modes"): every store of
 * any thread reaches the device, whatever instruction made it; the
 * per-object pages as pages of cmd_fd, rung through another mapping of it
 * (a DPDK secondary's).
 */

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "fixture.h"

/* ---- CQ arm (5.4, 14 #26) and doorbell id checks (14 #15) -------------------- */

static const uint8_t test_frame[64] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5,
};

static void
test_cq_arm_rx(void)
{
	struct ibv_comp_channel *ch;
	struct fx_rxq q;
	struct fx_buf b;
	struct gdma_sge sge;
	struct ibv_cq *ecq;
	struct gdma_cqe e;
	void *ectx;
	unsigned int i;
	struct fx f;

	struct mana_model_config cfg;

	/* one CQE per frame here: coalescing off */
	fx_config(&cfg, 1);
	cfg.rx_coalesce = false;
	REQUIRE(fx_open_cfg(&f, &cfg, true));
	ch = mana_vs_create_comp_channel(f.ctx);
	REQUIRE_NOT_NULL(ch);
	CHECK(ch->context == f.ctx);
	CHECK(fcntl(ch->fd, F_GETFL) & O_NONBLOCK);
	REQUIRE(fx_rxq_create(&f, 0, 1, 64, 1, fx_rss_key, ch, &q));
	REQUIRE(fx_buf_init(&f, &b, 64 * 2048));
	for (i = 0; i < 8; i++) {
		sge = fx_sge(&b, i * 2048, 2048);
		fx_rx_write(&q, 0, &sge, 1);
	}
	fx_rx_ring(&q, 0);
	fx_run(&f);
	/* not armed: a CQE, no event */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	CHECK_EQ(fx_cq_drain(&q.cq[0]), 1);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);
	/* arm for the next CQE (C = count + 1) through the RWQ's page */
	fx_cq_arm(q.dv[0].db_page, &q.cq[0]);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);	/* nothing yet */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	ecq = NULL;
	ectx = NULL;
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == q.cq[0].cq);
	CHECK(ectx == (void *)0x100);
	/* exactly one event per arm */
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);
	mana_vs_ack_cq_events(q.cq[0].cq, 1);
	CHECK_EQ(fx_cq_drain(&q.cq[0]), 2);
	/* another frame without a new arm: no event */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);
	/* arming behind an existing unconsumed CQE fires at once */
	fx_cq_arm(q.dv[0].db_page, &q.cq[0]);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == q.cq[0].cq);
	mana_vs_ack_cq_events(q.cq[0].cq, 1);
	CHECK(fx_cq_poll(&q.cq[0], &e));
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);
	fx_rxq_destroy(&q);
	CHECK_EQ(mana_vs_destroy_comp_channel(ch), 0);
	fx_buf_fini(&b);
	fx_close(&f);
}

/*
 * doorbell=queue: every queue object's page is a page 1.. of cmd_fd, at the
 * offset mana_vs_db_page_offset gives, so a second mapping of cmd_fd (what a
 * secondary process makes) rings the queue: a frame is received into WQEs
 * published only through that mapping.
 */
static void
test_db_pages_in_cmd_fd(void)
{
	struct mana_tx_oob oob;
	uint64_t off[3], o;
	struct fx_rxq q;
	struct fx_txq t;
	struct fx_buf b;
	struct gdma_sge sge;
	struct stat st;
	unsigned int i;
	uint8_t *map;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(fx_rxq_create(&f, 0, 2, 64, 1, fx_rss_key, NULL, &q));
	memset(&t, 0, sizeof(t));
	t.cq.cq = mana_vs_create_cq(f.ctx, 64, NULL, NULL, 0);
	REQUIRE_NOT_NULL(t.cq.cq);
	REQUIRE(fx_txq_attach(&f, 0, 64, 1, &t));
	REQUIRE_EQ(fstat(f.ctx->cmd_fd, &st), 0);
	CHECK_EQ(st.st_size, 4096 * (1 + 2 * 64));	/* page 0 + 2 x max_qp (default 64) */
	CHECK_EQ(mana_vs_db_page_offset(f.ctx, q.dv[0].db_page, &off[0]), 0);
	CHECK_EQ(mana_vs_db_page_offset(f.ctx, q.dv[1].db_page, &off[1]), 0);
	CHECK_EQ(mana_vs_db_page_offset(f.ctx, t.dv.db_page, &off[2]), 0);
	for (i = 0; i < 3; i++) {
		CHECK_GE(off[i], 4096);
		CHECK_EQ(off[i] % 4096, 0);
		CHECK(off[i] < (uint64_t)st.st_size);
	}
	CHECK(off[0] != off[1] && off[0] != off[2] && off[1] != off[2]);
	/* not a doorbell page of the context */
	CHECK_EQ(mana_vs_db_page_offset(f.ctx, (uint8_t *)q.dv[0].db_page + 8, &o), -EINVAL);
	CHECK_EQ(mana_vs_db_page_offset(f.ctx, &o, &o), -EINVAL);
	map = mmap(NULL, (size_t)st.st_size, PROT_WRITE, MAP_SHARED, f.ctx->cmd_fd, 0);
	REQUIRE(map != MAP_FAILED);
	/* WQEs on both RX queues, published through the other mapping only */
	REQUIRE(fx_buf_init(&f, &b, 16 * 2048));
	for (i = 0; i < 8; i++) {
		sge = fx_sge(&b, i * 2048, 2048);
		fx_rx_write(&q, i % 2, &sge, 1);
	}
	for (i = 0; i < 2; i++)
		fx_db(map + off[i], GDMA_DB_OFFSET_RQ, gdma_db_wq(q.dv[i].wq_id, q.head[i]));
	fx_run(&f);
	for (i = 0; i < 16; i++)
		CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	/* a non-IP frame has no hash: all go to one queue, which has 4 WQEs */
	CHECK_EQ(fx_stats(&f, 0).rx_frames, 4);
	/* a TX WQE sent through the QP's page in the other mapping */
	memcpy(b.base, test_frame, sizeof(test_frame));
	sge = fx_sge(&b, 0, sizeof(test_frame));
	fx_tx_oob(&t, &oob);
	fx_tx_write(&t, &oob, false, &sge, 1);
	fx_db(map + off[2], GDMA_DB_OFFSET_SQ, gdma_db_wq(t.dv.sq_id, t.head));
	fx_run(&f);
	CHECK_EQ(fx_stats(&f, 0).tx_frames, 1);
	CHECK_EQ(fx_stats(&f, 0).db_rejected, 0);
	munmap(map, (size_t)st.st_size);
	fx_buf_fini(&b);
	fx_txq_destroy(&t);
	fx_rxq_destroy(&q);
	fx_close(&f);
}

static void
test_cq_arm_tx(void)
{
	struct ibv_comp_channel *ch;
	struct fx_txq q;
	struct fx_buf b;
	struct gdma_sge sge;
	struct mana_tx_oob oob;
	struct ibv_cq *ecq;
	void *ectx;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	ch = mana_vs_create_comp_channel(f.ctx);
	REQUIRE_NOT_NULL(ch);
	memset(&q, 0, sizeof(q));
	q.cq.cq = mana_vs_create_cq(f.ctx, 64, (void *)0x99, ch, 0);
	REQUIRE_NOT_NULL(q.cq.cq);
	REQUIRE(fx_txq_attach(&f, 0, 64, 1, &q));
	REQUIRE(fx_buf_init(&f, &b, 4096));
	memcpy(b.base, test_frame, sizeof(test_frame));
	sge = fx_sge(&b, 0, sizeof(test_frame));
	fx_tx_oob(&q, &oob);
	/* arm through the QP's page, then send */
	fx_cq_arm(q.dv.db_page, &q.cq);
	fx_tx_write(&q, &oob, false, &sge, 1);
	fx_tx_ring(&q);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), 0);
	CHECK(ecq == q.cq.cq);
	CHECK(ectx == (void *)0x99);
	mana_vs_ack_cq_events(q.cq.cq, 1);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);
	CHECK_EQ(fx_cq_drain(&q.cq), 1);
	fx_tx_write(&q, &oob, false, &sge, 1);
	fx_tx_ring(&q);
	fx_run(&f);
	CHECK_EQ(mana_vs_get_cq_event(ch, &ecq, &ectx), -EAGAIN);
	CHECK_EQ(fx_cq_drain(&q.cq), 1);
	fx_txq_destroy(&q);
	CHECK_EQ(mana_vs_destroy_comp_channel(ch), 0);
	fx_buf_fini(&b);
	fx_close(&f);
}

static void
test_doorbell_wrong_id(void)
{
	struct mana_model_port_stats st0, st;
	struct fx_rxq q;
	struct fx_txq t;
	struct fx_buf b;
	struct gdma_sge sge;
	struct mana_tx_oob oob;
	struct gdma_cqe e;
	struct fx f;

	REQUIRE(fx_open(&f, 1));
	REQUIRE(fx_rxq_create(&f, 0, 2, 64, 1, fx_rss_key, NULL, &q));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &t));
	REQUIRE(fx_buf_init(&f, &b, 16384));
	st0 = fx_stats(&f, 0);

	/* RQ doorbell naming the other RWQ on this RWQ's page: rejected */
	sge = fx_sge(&b, 0, 2048);
	fx_rx_write(&q, 0, &sge, 1);
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_RQ, gdma_db_wq(q.dv[1].wq_id, q.head[0]));
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 1);
	/* an unknown id, an SQ doorbell on an RWQ page, an EQ doorbell: rejected */
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_RQ, gdma_db_wq(0xFFFFF0, q.head[0]));
	fx_run(&f);
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_SQ, gdma_db_wq(q.dv[0].wq_id, q.head[0]));
	fx_run(&f);
	fx_db(q.dv[0].db_page, GDMA_DB_OFFSET_EQ, 1);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 4);
	/* the queue did not advance: a frame finds no WQE on either RQ */
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.rx_drop_no_wqe, st0.rx_drop_no_wqe + 1);
	CHECK_EQ(st.rx_frames, st0.rx_frames);
	CHECK(!fx_cq_poll(&q.cq[0], &e));
	CHECK(!fx_cq_poll(&q.cq[1], &e));
	/* the right id: accepted, the next non-IP frame lands (default WQ = the last) */
	fx_rx_write(&q, 1, &sge, 1);
	fx_rx_ring(&q, 1);
	fx_rx_ring(&q, 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 4);
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.rx_frames, st0.rx_frames + 1);
	CHECK(fx_cq_poll(&q.cq[1], &e));

	/* SQ doorbell with a wrong id on the QP's page: rejected, nothing sent */
	memcpy(b.base + 8192, test_frame, sizeof(test_frame));
	sge = fx_sge(&b, 8192, sizeof(test_frame));
	fx_tx_oob(&t, &oob);
	fx_tx_write(&t, &oob, false, &sge, 1);
	fx_db(t.dv.db_page, GDMA_DB_OFFSET_SQ, gdma_db_wq(t.dv.sq_id + 1, t.head));
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 5);
	CHECK_EQ(st.tx_frames, st0.tx_frames);
	CHECK(!fx_cq_poll(&t.cq, &e));
	/* a CQ arm naming a CQ not bound to this page: rejected */
	fx_cq_arm(t.dv.db_page, &q.cq[0]);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 6);
	/* the right id: sent */
	fx_tx_ring(&t);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 6);
	CHECK_EQ(st.tx_frames, st0.tx_frames + 1);
	CHECK(fx_cq_poll(&t.cq, &e));
	CHECK_EQ(fx_cqe_type(&e), CQE_TX_OKAY);

	fx_txq_destroy(&t);
	fx_rxq_destroy(&q);
	fx_buf_fini(&b);
	fx_close(&f);
}


/* ---- the lossless shared doorbell page ------------------------------------------------ */

#define DB_NQ		8	/* queues */
#define DB_ROUNDS	48	/* WQEs (and doorbells) per queue, manual test */
#define DB_CQ_RINGS	20000	/* CQ doorbells per queue, threaded test */

struct db_ringer {
	struct fx_txq *q;	/* this thread's DB_NQ / 2 queues */
	struct fx_buf *b;
	pthread_barrier_t *go;
	unsigned int rounds;
	bool cq_only;		/* CQ doorbells (no arm) instead of SQ WQEs */
};

static void *
db_ringer_main(void *arg)
{
	struct db_ringer *r = arg;
	struct mana_tx_oob oob;
	struct gdma_sge sge = fx_sge(r->b, 0, sizeof(test_frame));

	pthread_barrier_wait(r->go);
	for (unsigned int i = 0; i < r->rounds; i++) {
		for (unsigned int k = 0; k < DB_NQ / 2; k++) {
			struct fx_txq *q = &r->q[k];

			if (r->cq_only) {
				fx_db(q->dv.db_page, GDMA_DB_OFFSET_CQ,
				      ((uint64_t)i << GDMA_DB_TAIL_SHIFT) | q->cq.dv.cq_id);
				continue;
			}
			fx_tx_oob(q, &oob);
			fx_tx_write(q, &oob, false, &sge, 1);
			fx_tx_ring(q);
		}
	}
	return NULL;
}

/* Two threads ring their four queues each, back to back, into one shared page. */
static void
db_ring_from_two_threads(struct fx_txq *q, struct fx_buf *b, unsigned int rounds, bool cq_only)
{
	pthread_barrier_t go;
	struct db_ringer r[2];
	pthread_t t[2];

	pthread_barrier_init(&go, NULL, 3);
	for (unsigned int i = 0; i < 2; i++) {
		r[i] = (struct db_ringer){ .q = &q[i * (DB_NQ / 2)], .b = b, .go = &go,
					   .rounds = rounds, .cq_only = cq_only };
		REQUIRE(pthread_create(&t[i], NULL, db_ringer_main, &r[i]) == 0);
	}
	pthread_barrier_wait(&go);
	for (unsigned int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
}

static uint64_t
db_engine_doorbells(struct fx *f)
{
	struct mana_model_engine_stats es;

	memset(&es, 0, sizeof(es));
	CHECK_EQ(mana_model_engine_stats(f->m, &es), 0);
	return es.doorbells;
}

static bool
db_open_shared(struct fx *f, bool manual)
{
	struct mana_model_config cfg;

	fx_config(&cfg, 1);
	cfg.shared_doorbell = true;
	cfg.manual = manual;
	return fx_open_cfg(f, &cfg, true);
}

/*
 * 8 TX queues, 2 threads, 48 rounds, no device pass until all 384 doorbells
 * are rung: a page that keeps only the last store per slot would show the
 * device 1 doorbell of 384. Every WQE must complete on its own queue.
 */
static void
test_shared_db_lossless_manual(void)
{
	struct mana_model_port_stats st;
	struct fx_txq q[DB_NQ];
	struct fx_buf b;
	struct fx f;

	REQUIRE(db_open_shared(&f, true));
	for (unsigned int i = 0; i < DB_NQ; i++) {
		REQUIRE(fx_txq_create(&f, 0, 64, 1, &q[i]));
		CHECK(q[i].dv.db_page == q[0].dv.db_page);	/* one page for all */
	}
	REQUIRE(fx_buf_init(&f, &b, 4096));
	memcpy(b.base, test_frame, sizeof(test_frame));
	db_ring_from_two_threads(q, &b, DB_ROUNDS, false);
	fx_run(&f);
	CHECK_EQ(db_engine_doorbells(&f), (uint64_t)DB_NQ * DB_ROUNDS);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, 0);
	CHECK_EQ(st.queue_errors, 0);
	CHECK_EQ(st.tx_frames, (uint64_t)DB_NQ * DB_ROUNDS);
	for (unsigned int i = 0; i < DB_NQ; i++) {
		struct mana_model_queue_stats qs;

		CHECK_EQ(fx_cq_drain(&q[i].cq), DB_ROUNDS);
		CHECK_EQ(mana_model_queue_stats(f.m, q[i].dv.sq_id, &qs), 0);
		CHECK_EQ(qs.frames, DB_ROUNDS);
	}
	CHECK(mana_model_last_error(f.m)[0] == 0);
	for (unsigned int i = 0; i < DB_NQ; i++)
		fx_txq_destroy(&q[i]);
	fx_buf_fini(&b);
	fx_close(&f);
}

/*
 * The engine on its own thread, 160000 stores from 2 threads: the queue of
 * 4096 fills and the ringing threads wait for the device; none is lost.
 */
static void
test_shared_db_lossless_threaded(void)
{
	const uint64_t want = (uint64_t)DB_NQ * DB_CQ_RINGS;
	struct timespec t0, t1;
	struct fx_txq q[DB_NQ];
	struct fx_buf b;
	struct fx f;
	uint64_t base, n = 0;

	REQUIRE(db_open_shared(&f, false));
	for (unsigned int i = 0; i < DB_NQ; i++)
		REQUIRE(fx_txq_create(&f, 0, 64, 1, &q[i]));
	REQUIRE(fx_buf_init(&f, &b, 4096));
	base = db_engine_doorbells(&f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	db_ring_from_two_threads(q, &b, DB_CQ_RINGS, true);
	for (unsigned int i = 0; i < 10000 && n < want; i++) {
		n = db_engine_doorbells(&f) - base;
		if (n < want)
			usleep(1000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_EQ(n, want);
	CHECK_EQ(fx_stats(&f, 0).db_rejected, 0);
	printf("  %llu doorbells in %.0f ms\n", (unsigned long long)n,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	for (unsigned int i = 0; i < DB_NQ; i++)
		fx_txq_destroy(&q[i]);
	fx_buf_fini(&b);
	fx_close(&f);
}

/* One store of any form to offset 0x100 (not a doorbell): rejected with what it stored. */
static void
db_check_rejected(struct fx *f, uint64_t *rejected, const char *what, const char *want)
{
	fx_run(f);
	(*rejected)++;
	CHECK_EQ(fx_stats(f, 0).db_rejected, *rejected);
	if (strstr(mana_model_last_error(f->m), want) == NULL)
		UNIT_FAIL("%s: last error \"%s\" lacks \"%s\"", what, mana_model_last_error(f->m),
			  want);
}

#if defined(__x86_64__)

/*
 * The trap decodes each instruction a compiler may emit for a doorbell
 * store, takes the value from the right register and resumes after it.
 */
static void
test_shared_db_store_forms(void)
{
	uint64_t rejected = 0, v = 0x1122334455667788ull, r;
	struct fx_txq q;
	uint8_t *pg;
	struct fx f;

	REQUIRE(db_open_shared(&f, true));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &q));
	pg = q.dv.db_page;

	__asm__ volatile("movq %1, 0x100(%0)" : : "r"(pg), "r"(v) : "memory");
	db_check_rejected(&f, &rejected, "mov r64", "1122334455667788 at page");
	__asm__ volatile("movq %1, 0x80(%0,%2,8)" : : "r"(pg), "r"(v + 1), "r"(16ul) : "memory");
	db_check_rejected(&f, &rejected, "mov r64 sib+disp", "1122334455667789");
	__asm__ volatile("movq %1, (%0)" : : "r"(pg + 0x100), "r"(v + 2) : "memory");
	db_check_rejected(&f, &rejected, "mov r64 no disp", "112233445566778a");
	__asm__ volatile("movq %1, %%r13\n\tmovq %%r13, 0x100(%0)" : : "r"(pg), "r"(v + 3)
			 : "r13", "memory");
	db_check_rejected(&f, &rejected, "mov r13", "112233445566778b");
	__asm__ volatile("movnti %1, 0x100(%0)" : : "r"(pg), "r"(v + 4) : "memory");
	db_check_rejected(&f, &rejected, "movnti", "112233445566778c");
	__asm__ volatile("movq %1, %%xmm9\n\tmovq %%xmm9, 0x100(%0)" : : "r"(pg), "r"(v + 5)
			 : "xmm9", "memory");
	db_check_rejected(&f, &rejected, "movq xmm9", "112233445566778d");
	__asm__ volatile("movq $-2, 0x100(%0)" : : "r"(pg) : "memory");
	db_check_rejected(&f, &rejected, "mov imm32", "fffffffffffffffe");
	r = v + 6;
	__asm__ volatile("xchgq %0, 0x100(%1)" : "+r"(r) : "r"(pg) : "memory");
	db_check_rejected(&f, &rejected, "xchg", "112233445566778e");
	CHECK_EQ(r, 0);		/* the old contents of the page */
	if (__builtin_cpu_supports("avx")) {
		__asm__ volatile("vmovq %1, %%xmm12\n\tvmovq %%xmm12, 0x100(%0)"
				 : : "r"(pg), "r"(v + 7) : "xmm12", "memory");
		db_check_rejected(&f, &rejected, "vmovq xmm12", "112233445566778f");
	}
	/* the wrong widths at a doorbell offset are refused, not read as doorbells */
	__asm__ volatile("movl %1, 0x800(%0)" : : "r"(pg), "r"((uint32_t)q.cq.dv.cq_id)
			 : "memory");
	db_check_rejected(&f, &rejected, "mov r32", "4-byte store at offset 0x800");
	__asm__ volatile("movb $1, 0x400(%0)" : : "r"(pg) : "memory");
	db_check_rejected(&f, &rejected, "mov m8", "1-byte store at offset 0x400");
	__asm__ volatile("movw $1, 0x400(%0)" : : "r"(pg) : "memory");
	db_check_rejected(&f, &rejected, "mov m16", "2-byte store at offset 0x400");
	__asm__ volatile("pxor %%xmm1, %%xmm1\n\tmovdqu %%xmm1, (%0)" : : "r"(pg)
			 : "xmm1", "memory");
	db_check_rejected(&f, &rejected, "movdqu", "16-byte store at offset 0x000");
	/* a real doorbell through an XMM store still rings its queue */
	{
		struct mana_tx_oob oob;
		struct gdma_sge sge;
		struct fx_buf b;

		REQUIRE(fx_buf_init(&f, &b, 4096));
		memcpy(b.base, test_frame, sizeof(test_frame));
		sge = fx_sge(&b, 0, sizeof(test_frame));
		fx_tx_oob(&q, &oob);
		fx_tx_write(&q, &oob, false, &sge, 1);
		__asm__ volatile("movq %1, %%xmm2\n\tmovq %%xmm2, (%0)" : : "r"(pg),
				 "r"(gdma_db_wq(q.dv.sq_id, q.head)) : "xmm2", "memory");
		fx_run(&f);
		CHECK_EQ(fx_cq_drain(&q.cq), 1);
		CHECK_EQ(fx_stats(&f, 0).tx_frames, 1);
		fx_txq_destroy(&q);
		fx_buf_fini(&b);
	}
	CHECK_EQ(fx_stats(&f, 0).db_rejected, rejected);
	fx_close(&f);
}

/* A store the trap cannot decode (rep stos) lands in memory and stops the device. */
static void
test_shared_db_undecodable(void)
{
	struct ibv_async_event ev;
	uint64_t *dst;
	struct fx_txq q;
	struct fx f;
	long cnt = 1;

	REQUIRE(db_open_shared(&f, true));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &q));
	dst = (uint64_t *)(void *)((uint8_t *)q.dv.db_page + 0x200);
	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(cnt) : "a"(7ul) : "memory");
	fx_run(&f);
	CHECK(strstr(mana_model_last_error(f.m), "cannot decode: f3 48 ab") != NULL);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	mana_vs_ack_async_event(f.ctx, &ev);
	fx_txq_destroy(&q);
	fx_close(&f);
}

#elif defined(__aarch64__)

/*
 * The trap decodes each A64 store a compiler may emit for a doorbell (DPDK's
 * rte_write64 is STR Xt, [Xn]; a C store may take any addressing form), takes
 * the value from the right register, writes the base register back for the
 * indexed forms and resumes after the store.
 */
static void
test_shared_db_store_forms(void)
{
	uint64_t rejected = 0, v = 0x1122334455667788ull;
	struct fx_txq q;
	uint8_t *pg, *b;
	struct fx f;

	REQUIRE(db_open_shared(&f, true));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &q));
	pg = q.dv.db_page;

	__asm__ volatile("str %x1, [%0, #0x100]" : : "r"(pg), "r"(v) : "memory");
	db_check_rejected(&f, &rejected, "str x imm", "1122334455667788 at page");
	__asm__ volatile("str %x1, [%0, %x2, lsl #3]" : : "r"(pg), "r"(v + 1), "r"(0x20ul)
			 : "memory");
	db_check_rejected(&f, &rejected, "str x reg lsl", "1122334455667789");
	__asm__ volatile("stur %x1, [%0, #-8]" : : "r"(pg + 0x108), "r"(v + 2) : "memory");
	db_check_rejected(&f, &rejected, "stur x", "112233445566778a");
	b = pg + 0x100;
	__asm__ volatile("str %x1, [%0], #16" : "+r"(b) : "r"(v + 3) : "memory");
	db_check_rejected(&f, &rejected, "str x post-index", "112233445566778b");
	CHECK(b == pg + 0x110);
	b = pg + 0xF0;
	__asm__ volatile("str %x1, [%0, #16]!" : "+r"(b) : "r"(v + 4) : "memory");
	db_check_rejected(&f, &rejected, "str x pre-index", "112233445566778c");
	CHECK(b == pg + 0x100);
	__asm__ volatile("fmov d9, %x1\n\tstr d9, [%0, #0x100]" : : "r"(pg), "r"(v + 5)
			 : "v9", "memory");
	db_check_rejected(&f, &rejected, "str d9", "112233445566778d");
	__asm__ volatile("str xzr, [%0, #0x100]" : : "r"(pg) : "memory");
	db_check_rejected(&f, &rejected, "str xzr", "0x0000000000000000 at page");
	__asm__ volatile("stlr %x1, [%0]" : : "r"(pg + 0x100), "r"(v + 6) : "memory");
	db_check_rejected(&f, &rejected, "stlr x", "112233445566778e");
	/* the wrong widths at a doorbell offset are refused, not read as doorbells */
	__asm__ volatile("str %w1, [%0, #0x800]" : : "r"(pg), "r"((uint32_t)q.cq.dv.cq_id)
			 : "memory");
	db_check_rejected(&f, &rejected, "str w", "4-byte store at offset 0x800");
	__asm__ volatile("strb wzr, [%0, #0x400]" : : "r"(pg) : "memory");
	db_check_rejected(&f, &rejected, "strb", "1-byte store at offset 0x400");
	__asm__ volatile("strh %w1, [%0, #0x400]" : : "r"(pg), "r"(1u) : "memory");
	db_check_rejected(&f, &rejected, "strh", "2-byte store at offset 0x400");
	__asm__ volatile("stp %x1, %x1, [%0]" : : "r"(pg), "r"(v) : "memory");
	db_check_rejected(&f, &rejected, "stp x", "16-byte store at offset 0x000");
	b = pg + 0x10;
	__asm__ volatile("stp %w1, %w2, [%0, #-8]!" : "+r"(b) : "r"(1u), "r"(2u) : "memory");
	db_check_rejected(&f, &rejected, "stp w pre-index", "0x0000000200000001 at page");
	CHECK(b == pg + 0x8);
	__asm__ volatile("movi v1.2d, #0\n\tstr q1, [%0]" : : "r"(pg) : "v1", "memory");
	db_check_rejected(&f, &rejected, "str q1", "16-byte store at offset 0x000");
	/* a real doorbell through a SIMD&FP store still rings its queue */
	{
		struct mana_tx_oob oob;
		struct gdma_sge sge;
		struct fx_buf fb;

		REQUIRE(fx_buf_init(&f, &fb, 4096));
		memcpy(fb.base, test_frame, sizeof(test_frame));
		sge = fx_sge(&fb, 0, sizeof(test_frame));
		fx_tx_oob(&q, &oob);
		fx_tx_write(&q, &oob, false, &sge, 1);
		__asm__ volatile("fmov d2, %x1\n\tstr d2, [%0]" : : "r"(pg),
				 "r"(gdma_db_wq(q.dv.sq_id, q.head)) : "v2", "memory");
		fx_run(&f);
		CHECK_EQ(fx_cq_drain(&q.cq), 1);
		CHECK_EQ(fx_stats(&f, 0).tx_frames, 1);
		fx_txq_destroy(&q);
		fx_buf_fini(&fb);
	}
	CHECK_EQ(fx_stats(&f, 0).db_rejected, rejected);
	fx_close(&f);
}

/* A store the trap cannot decode (ST1, a structure store) lands in memory and stops the device. */
static void
test_shared_db_undecodable(void)
{
	struct ibv_async_event ev;
	struct fx_txq q;
	struct fx f;

	REQUIRE(db_open_shared(&f, true));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &q));
	{
		register uint8_t *x0 __asm__("x0") = (uint8_t *)q.dv.db_page + 0x200;

		__asm__ volatile("movi v0.2d, #0\n\tst1 {v0.2d}, [x0]" : : "r"(x0)
				 : "v0", "memory");
	}
	fx_run(&f);
	CHECK(strstr(mana_model_last_error(f.m), "cannot decode: 00 7c 00 4c") != NULL);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	mana_vs_ack_async_event(f.ctx, &ev);
	fx_txq_destroy(&q);
	fx_close(&f);
}

#endif

/* More stores between two manual steps than the queue holds: the device stops. */
static void
test_shared_db_overflow_manual(void)
{
	struct ibv_async_event ev;
	struct fx_txq q;
	struct fx f;

	REQUIRE(db_open_shared(&f, true));
	REQUIRE(fx_txq_create(&f, 0, 64, 1, &q));
	for (unsigned int i = 0; i < 4096 + 3; i++)
		fx_db(q.dv.db_page, GDMA_DB_OFFSET_CQ, q.cq.dv.cq_id);
	fx_run(&f);
	CHECK(strstr(mana_model_last_error(f.m), "doorbell queue overflow: 3 stores lost") !=
	      NULL);
	REQUIRE_EQ(mana_vs_get_async_event(f.ctx, &ev), 0);
	CHECK_EQ(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	mana_vs_ack_async_event(f.ctx, &ev);
	fx_txq_destroy(&q);
	fx_close(&f);
}

/*
 * A WQ outside every indirection table has no device object (hardware.md
 * §6, "tables over some of the WQs"): manadv_init_obj reports RQ and CQ id
 * 0 for it, its RQ doorbell and CQ arm are rejected and post nothing, and a
 * table of one WQ (log 0) takes every frame on that WQ.
 */
static void
test_rwq_outside_table(void)
{
	struct mana_model_port_stats st0, st;
	struct gdma_sge sge;
	struct gdma_cqe e;
	struct fx_rxq q;
	struct fx_buf b;
	struct fx f;
	unsigned int i;

	REQUIRE(fx_open(&f, 1));
	memset(&q, 0, sizeof(q));
	q.n = 2;
	for (i = 0; i < 2; i++) {
		q.cq[i].cq = fx_cq_new(&f, 64);
		REQUIRE(q.cq[i].cq != NULL);
		q.wq[i] = fx_wq_new(&f, f.ppd[0], q.cq[i].cq, 64, 1);
		REQUIRE(q.wq[i] != NULL);
	}
	q.ind = fx_ind_new(&f, 0, q.wq);	/* WQ 0 alone */
	REQUIRE(q.ind != NULL);
	q.qp = fx_rss_qp(&f, 0, q.ind, fx_rss_key);
	REQUIRE(q.qp != NULL);
	for (i = 0; i < 2; i++) {
		REQUIRE_EQ(fx_init_rx(q.cq[i].cq, &q.cq[i].dv, q.wq[i], &q.dv[i]), 0);
		fx_cqv_init(&q.cq[i]);
	}
	CHECK(q.dv[0].wq_id != 0 && q.cq[0].dv.cq_id != 0);
	CHECK_EQ(q.dv[1].wq_id, 0);
	CHECK_EQ(q.cq[1].dv.cq_id, 0);
	REQUIRE(fx_buf_init(&f, &b, 16384));
	st0 = fx_stats(&f, 0);

	/* WQ 1: a WQE written, rung and its CQ armed: both doorbells rejected. */
	sge = fx_sge(&b, 0, 2048);
	fx_rx_write(&q, 1, &sge, 1);
	fx_rx_ring(&q, 1);
	fx_cq_arm(q.dv[1].db_page, &q.cq[1]);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 2);

	/* WQ 0, the table's one WQ: the frame lands there, none on WQ 1. */
	sge = fx_sge(&b, 4096, 2048);
	fx_rx_write(&q, 0, &sge, 1);
	fx_rx_ring(&q, 0);
	fx_run(&f);
	CHECK_EQ(mana_model_inject_rx(f.m, 0, test_frame, sizeof(test_frame)), 0);
	fx_run(&f);
	st = fx_stats(&f, 0);
	CHECK_EQ(st.db_rejected, st0.db_rejected + 2);
	CHECK_EQ(st.rx_frames, st0.rx_frames + 1);
	CHECK(fx_cq_poll(&q.cq[0], &e));
	CHECK(!fx_cq_poll(&q.cq[1], &e));

	fx_rxq_destroy(&q);
	fx_buf_fini(&b);
	fx_close(&f);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_cq_arm_rx),
	UNIT_TEST(test_cq_arm_tx),
	UNIT_TEST(test_db_pages_in_cmd_fd),
	UNIT_TEST(test_doorbell_wrong_id),
	UNIT_TEST(test_rwq_outside_table),
	UNIT_TEST(test_shared_db_lossless_manual),
	UNIT_TEST(test_shared_db_lossless_threaded),
	UNIT_TEST(test_shared_db_store_forms),
	UNIT_TEST(test_shared_db_undecodable),
	UNIT_TEST(test_shared_db_overflow_manual),
};

UNIT_MAIN(tests)
