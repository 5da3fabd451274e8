/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Component test harness: EAL in --no-huge mode, net_mana vdevs created per
 * test case with rte_vdev_init(), frames crafted byte by byte, and the
 * software device's counters read through the model API the driver exports.
 *
 * Cases check with the macros of test/lib/check.h: a check that fails prints
 * where and why and counts in check_fails, a REQUIRE that fails also ends the
 * case (it returns from the case function). comp_run() runs the cases,
 * prints PASS/FAIL for each and returns 1 if any failed.
 */

#ifndef COMP_H
#define COMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "check.h"
#include "mana_model.h"

/* A failure with a message of its own at file:line (check.h's format). */
#define comp_fail check_fail_at

struct comp_case {
	const char *name;
	void (*fn)(void);
};

/* EAL with --no-huge, a per-process file prefix and -l 0-1; exits on failure. */
void comp_eal_init(const char *prog);
/* Called by comp_run() after the cases, before rte_eal_cleanup() (may stay NULL). */
extern void (*comp_teardown)(void);
/* Runs every case (or those named on the command line); returns the exit code. */
int comp_run(const struct comp_case *cases, unsigned int n, int argc, char **argv);

/* ---- devices ------------------------------------------------------------ */

/* rte_vdev_init(name, args); returns 0 or a negative errno. */
int comp_vdev_create(const char *name, const char *args);
/* MANA_TEST_DATAPATH, or NULL: the datapath comp_vdev_create gives every device. */
const char *comp_datapath(void);
/* This CPU (and build target) runs datapath dp. */
bool comp_datapath_runs_here(const char *dp);
/* comp_vdev_create with EAL's log captured in buf (cleared first, NUL-terminated). */
int comp_vdev_create_logged(const char *name, const char *args, char *buf, size_t size);
/* EAL's log into buf until comp_log_end (NULL: buf could not be opened). */
FILE *comp_log_begin(char *buf, size_t size);
void comp_log_end(FILE *f);
void comp_vdev_destroy(const char *name);
/* Ethdev port of vPort `vport` (0-based) of vdev `name`, or -1. */
int comp_port_of(const char *vdev, unsigned int vport);

struct comp_port_cfg {
	uint16_t nb_rxq, nb_txq;
	uint16_t nb_desc;		/* 0: 256 */
	bool rss;			/* mq_mode RSS */
	uint64_t rss_hf;
	const uint8_t *rss_key;		/* 40 bytes or NULL */
	uint64_t rx_offloads;		/* port RX offloads (RSS_HASH comes with rss) */
	uint64_t tx_offloads;
	bool intr_rxq;
	bool intr_lsc;
	bool intr_rmv;
	uint32_t rx_deferred;		/* bit q: RX queue q set up with rx_deferred_start */
	uint32_t tx_deferred;		/* bit q: TX queue q set up with tx_deferred_start */
};

/* configure + queue setup + start; returns 0 or the first error. */
int comp_port_start(uint16_t pid, const struct comp_port_cfg *c, struct rte_mempool *mp);
/* Pool without per-lcore cache, so rte_mempool_avail_count() is exact. */
struct rte_mempool *comp_pool(const char *name, unsigned int n, uint16_t data_room);

/* ---- frames -------------------------------------------------------------- */

struct comp_frame {
	struct rte_ether_addr dst, src;
	bool ipv6;
	uint8_t proto;			/* IPPROTO_UDP / IPPROTO_TCP */
	uint32_t sip, dip;		/* IPv4, host order */
	uint8_t sip6[16], dip6[16];
	uint16_t sport, dport;		/* host order */
	uint32_t len;			/* whole frame, without FCS */
	uint8_t seed;			/* payload byte k = seed + 7 * k */
	bool bad_ip_csum;		/* IPv4 header checksum off by one */
	bool bad_l4_csum;		/* L4 checksum off by one */
	bool zero_csums;		/* both checksum fields 0 (for offload) */
};

void comp_frame_default(struct comp_frame *f);
/* Writes f->len bytes into buf; returns the length. */
uint32_t comp_frame_build(uint8_t *buf, const struct comp_frame *f);
/* One-segment mbuf holding bytes; NULL when the pool is empty. */
struct rte_mbuf *comp_mbuf_from(struct rte_mempool *mp, const uint8_t *bytes, uint32_t len);
/* The frame's IPv4 header and L4 checksum are correct. */
bool comp_csums_ok(const uint8_t *frame, uint32_t len);

/* ---- traffic --------------------------------------------------------------- */

/*
 * Bound of every wait for something that must happen. Generous: the machine
 * may be shared and the model's engine thread starved; a wait for something
 * that must NOT happen is short and stated where it is used.
 */
#define COMP_WAIT_MS	10000

/* RTE_IPV4 shifts an int: undefined for a first byte above 127 (UBSan). */
#define COMP_IPV4(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

uint64_t comp_now_ms(void);
void comp_sleep_ms(unsigned int ms);
/* Sends every packet (retrying up to timeout_ms); returns how many were taken. */
uint16_t comp_tx_all(uint16_t pid, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
		     unsigned int timeout_ms);
/*
 * Polls queues [0, nq) until `want` packets arrived (no burst takes more) or
 * timeout_ms passed. Stores up to max packets in pkts (the rest are freed)
 * and counts per queue in per_q (may be NULL); returns the number received.
 */
uint32_t comp_rx_wait(uint16_t pid, uint16_t nq, struct rte_mbuf **pkts, uint32_t max,
		      uint32_t want, unsigned int timeout_ms, uint32_t *per_q);
/* Receives and frees whatever arrives during ms; returns the count. */
uint32_t comp_rx_drain(uint16_t pid, uint16_t nq, unsigned int ms);
void comp_free(struct rte_mbuf **pkts, uint32_t n);

/* Model counters of vPort `vport` of model `name`; false if not found. */
bool comp_model_stats(const char *model, unsigned int vport, struct mana_model_port_stats *st);
/* Value of the xstat `name` of port pid; -1 if absent. */
int64_t comp_xstat(uint16_t pid, const char *name);

/* The per-queue counters of the first COMP_QSTATS queues. */
#define COMP_QSTATS	8
struct comp_qstats {
	uint64_t ipackets[COMP_QSTATS], ibytes[COMP_QSTATS], ierrors[COMP_QSTATS];
	uint64_t opackets[COMP_QSTATS], obytes[COMP_QSTATS];
};
/* The port's per-queue counters as an application reads them; 0 or -errno. */
int comp_qstats_get(uint16_t pid, struct comp_qstats *q);

#endif /* COMP_H */
