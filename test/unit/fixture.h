/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Test fixture for the verbs, engine and wire tests: a model device opened
 * through lib/verbs_shim, a recording ring allocator, and a minimal driver
 * (queues created as DPDK does, WQEs written into the raw rings, doorbells,
 * CQ polling with the owner-bit protocol of hardware.md §4.2).
 */

#ifndef TEST_FIXTURE_H
#define TEST_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mana_gdma.h"
#include "mana_vs.h"
#include "mana_model.h"
#include "unit.h"

/* ---- Recording allocator (manadv_set_context_attr) ---------------------- */

#define FX_MAX_REC 1024

struct fx_mem {
	unsigned int allocs, frees;
	unsigned int n;			/* recorded allocations */
	size_t size[FX_MAX_REC];
	void *ptr[FX_MAX_REC];
	void *data[FX_MAX_REC];
	void *free_data_last;
	bool fail;			/* next allocations return NULL */
};

extern struct fx_mem fx_mem;

void *fx_alloc(size_t size, void *data);

void fx_free(void *p, void *data);

/* Size of the most recent allocation (0 if none since `since`). */
size_t fx_last_size(unsigned int since);

/* ---- Device -------------------------------------------------------------- */

struct fx {
	struct mana_model *m;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_pd *ppd[MANA_MODEL_MAX_PORTS];
	unsigned int nports;
	void *alloc_data;
};

/* Manual engine, no wires, coalescing per the default; unique name. */
void fx_config(struct mana_model_config *cfg, unsigned int nports);

int fx_set_alloc(struct fx *f, void *data);

/* Create the device, open it, allocators, one PD, one parent domain per port. */
bool fx_open_cfg(struct fx *f, const struct mana_model_config *cfg, bool with_alloc);

bool fx_open(struct fx *f, unsigned int nports);

/* Tear down what fx_open made (objects must already be gone). */
void fx_close(struct fx *f);

void fx_db(void *page, uint32_t off, uint64_t v);

void fx_run(struct fx *f);

struct mana_model_port_stats fx_stats(struct fx *f, unsigned int port);

/* ---- CQ consumer (hardware.md §4.2) -------------------------------------- */

struct fx_cqv {
	struct ibv_cq *cq;
	struct manadv_cq dv;
	uint32_t c;		/* consumer index, starts at count */
};

void fx_cqv_init(struct fx_cqv *c);

/*
 * The next CQE copied to *out if it is new; false when empty. An owner value
 * that is neither the new nor the previous lap's is an overflow: a failure.
 */
bool fx_cq_poll(struct fx_cqv *c, struct gdma_cqe *out);

unsigned int fx_cq_drain(struct fx_cqv *c);

uint32_t fx_cqe_type(const struct gdma_cqe *e);

/* ---- WQE writer (hardware.md §3.1, §2.4) --------------------------------- */

/*
 * Write a WQE at BU index head into a ring of ring_size bytes: header and
 * inline OOB never wrap (they start on a BU), the SGL wraps to offset 0.
 * Returns the WQE size in BUs.
 */
uint32_t fx_wqe_write(uint8_t *ring, uint32_t ring_size, uint32_t head, uint32_t hdr_dw1,
	     const void *oob, uint32_t oob_size, const struct gdma_sge *sge, uint32_t nsge);

/* ---- Verbs objects with the attributes a driver passes ------------------- */

/* DPDK 22.11's default RSS key (hardware.md §6). */
extern const uint8_t fx_rss_key[40];

struct ibv_cq *fx_cq_new(struct fx *f, int cqe);

struct ibv_wq *fx_wq_new(struct fx *f, struct ibv_pd *pd, struct ibv_cq *cq, uint32_t max_wr,
		uint32_t max_sge);

/* A RAW_PACKET QP (a TX queue) on one CQ. */
void fx_raw_qp_attr(struct ibv_qp_init_attr *a, struct ibv_cq *cq, uint32_t wr, uint32_t sge);

struct ibv_qp *fx_raw_qp_new(struct ibv_pd *pd, struct ibv_cq *cq, uint32_t wr, uint32_t sge);

struct ibv_rwq_ind_table *fx_ind_new(struct fx *f, unsigned int log, struct ibv_wq **wqs);

/* An RSS QP over a table: Toeplitz with a 40-byte key over the given fields. */
void fx_rss_attr(struct ibv_qp_init_attr_ex *a, struct ibv_pd *pd, struct ibv_rwq_ind_table *ind,
	    const uint8_t *key, uint64_t fields);

/* manadv_init_obj on an RX CQ and its RWQ (ids are 0 until the RSS QP exists). */
int fx_init_rx(struct ibv_cq *cq, struct manadv_cq *dcq, struct ibv_wq *wq,
		struct manadv_rwq *drwq);

/* ---- TX queue ------------------------------------------------------------ */

struct fx_txq {
	struct fx_cqv cq;
	struct ibv_qp *qp;
	struct manadv_qp dv;
	uint32_t head;		/* producer, BUs */
};

/* The QP and the ring views, on the CQ the caller put in q->cq.cq. */
bool fx_txq_attach(struct fx *f, unsigned int port, uint32_t depth, uint32_t max_sge,
	      struct fx_txq *q);

bool fx_txq_create(struct fx *f, unsigned int port, uint32_t depth, uint32_t max_sge,
	      struct fx_txq *q);

void fx_txq_destroy(struct fx_txq *q);

/* The short OOB a correct driver writes for this queue. */
void fx_tx_oob(const struct fx_txq *q, struct mana_tx_oob *oob);

/* The long form of the same OOB (pkt_fmt 1, long vport offset). */
void fx_tx_oob_long(const struct fx_txq *q, struct mana_tx_oob *oob);

/* Write one TX WQE (no doorbell); returns its BU index. */
uint32_t fx_tx_write(struct fx_txq *q, const struct mana_tx_oob *oob, bool long_oob,
	    const struct gdma_sge *sge, uint32_t nsge);

void fx_tx_ring(struct fx_txq *q);

/* Arm CQ c for its next CQE (hardware.md §5.4) through a queue's doorbell page. */
void fx_cq_arm(void *db_page, const struct fx_cqv *c);

/* ---- RX queues (one RSS QP over n WQs) ------------------------------------ */

#define FX_MAX_RXQ 8

struct fx_rxq {
	unsigned int n;
	struct fx_cqv cq[FX_MAX_RXQ];
	struct ibv_wq *wq[FX_MAX_RXQ];
	struct manadv_rwq dv[FX_MAX_RXQ];
	uint32_t head[FX_MAX_RXQ];
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
	struct ibv_comp_channel *chan;
};

struct ibv_qp *fx_rss_qp(struct fx *f, unsigned int port, struct ibv_rwq_ind_table *ind,
		const uint8_t *key);

/* n must be a power of two; chan may be NULL. */
bool fx_rxq_create(struct fx *f, unsigned int port, unsigned int n, uint32_t depth,
		uint32_t max_sge,
	      const uint8_t *key, struct ibv_comp_channel *chan, struct fx_rxq *q);

void fx_rxq_destroy(struct fx_rxq *q);

/* Post one RX WQE with the given SGEs on WQ i (no doorbell). */
uint32_t fx_rx_write(struct fx_rxq *q, unsigned int i, const struct gdma_sge *sge, uint32_t nsge);

void fx_rx_ring(struct fx_rxq *q, unsigned int i);

/* ---- Memory registered on the plain PD ------------------------------------ */

struct fx_buf {
	uint8_t *base;
	size_t len;
	struct ibv_mr *mr;
};

bool fx_buf_init(struct fx *f, struct fx_buf *b, size_t len);

void fx_buf_fini(struct fx_buf *b);

struct gdma_sge fx_sge(const struct fx_buf *b, size_t off, uint32_t len);

#endif /* TEST_FIXTURE_H */
