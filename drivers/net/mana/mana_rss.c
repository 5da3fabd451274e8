/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * RSS: indirection table, key, RETA.
 *
 * The device replicates a table of 2^n distinct WQs over its 64 entries
 * (entry i = WQ[i mod 2^n], hardware.md §6), and a WQ may appear once (§6
 * "expressible tables"); one WQ (2^0) is a valid table. The kernel creates a
 * WQ's hardware RQ and CQ objects only as entries of an RSS QP's table (§6
 * "ids"), so the table need not name every RX queue: a queue it leaves out
 * has no device object and is idle (mana_rxq.c).
 *
 * The driver keeps the period: reta[0..P-1], P = reta_period distinct queues
 * (a power of two, 1..nb_rx_queues); the effective 64-entry table is
 * reta[i mod P]. After configure it is the identity over the P = nb_rx_queues
 * queues. reta_update merges the entries an update gives (its mask) with the
 * table in effect and accepts the result exactly when it has that shape for
 * some P (the number of distinct queues it names); any other is refused with
 * -EINVAL and one line naming the entries that break the shape and what
 * would be accepted. An update of one entry alone therefore passes only
 * when it leaves the table's shape as it was: with P < 64 the entries i,
 * i+P, ... change together (dpdk-testpmd-mana's "mana port N rss reta" sets
 * the whole table from a pattern).
 *
 * Key, hash types and RETA are stored, and take effect at the next start or
 * at once on a started port: the RSS QP cannot be changed, and the kernel
 * creates the hardware RQ and CQ objects with it and destroys them with it
 * (hardware.md §6, "ids"), so a started port's RX side is built again over
 * the new table and key (mana_rx_rebuild: every RX gate closed, every ring
 * posted again; no frame is received meanwhile). While the device is being
 * recovered they are only stored (the recovery applies them).
 * rx_hash_fields_mask follows rss_hf, though the device ignores it (the hash
 * input is the device's choice, reported per packet).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mana_ethdev.h"
#include "mana_logs.h"

/* Same bytes as DPDK 22.11 net/mana's default key (hardware.md §6). */
static const uint8_t mana_default_rss_key[MANA_RSS_KEY_LEN] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

static void
reta_identity(struct mana_priv *priv, uint16_t period)
{
	uint16_t i;

	priv->reta_period = period;
	priv->reta_nrx = period;
	for (i = 0; i < period; i++)
		priv->reta[i] = i;
	priv->reta_set = false;
}

/* Whether RX queue qid is in the table: its WQ gets device objects (top of this file). */
bool
mana_rss_has_queue(const struct mana_priv *priv, uint16_t qid)
{
	uint16_t i;

	for (i = 0; i < priv->reta_period; i++)
		if (priv->reta[i] == qid)
			return true;
	return false;
}

void
mana_rss_init(struct mana_priv *priv)
{
	memcpy(priv->rss_key, mana_default_rss_key, MANA_RSS_KEY_LEN);
	priv->rss_hf = MANA_RSS_HF;
	reta_identity(priv, 1);
}

static uint64_t
rss_hash_fields(uint64_t rss_hf)
{
	uint64_t f = 0;

	if (rss_hf & (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
		      RTE_ETH_RSS_NONFRAG_IPV4_UDP))
		f |= IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
	if (rss_hf & (RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP |
		      RTE_ETH_RSS_NONFRAG_IPV6_UDP))
		f |= IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6;
	if (rss_hf & (RTE_ETH_RSS_NONFRAG_IPV4_TCP | RTE_ETH_RSS_NONFRAG_IPV6_TCP))
		f |= IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	if (rss_hf & (RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP))
		f |= IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	return f;
}

static int
rss_check_conf(struct mana_priv *priv, const struct rte_eth_rss_conf *conf)
{
	if (conf->rss_key != NULL && conf->rss_key_len != MANA_RSS_KEY_LEN) {
		PMD_DRV_LOG(ERR, "port %u: RSS key of %u bytes; the device takes exactly %u",
			    priv->port_id, conf->rss_key_len, MANA_RSS_KEY_LEN);
		return -EINVAL;
	}
	if (conf->rss_hf & ~MANA_RSS_HF) {
		PMD_DRV_LOG(ERR, "port %u: RSS types %#" PRIx64 " not supported (allowed %#llx)",
			    priv->port_id, conf->rss_hf & ~MANA_RSS_HF,
			    (unsigned long long)MANA_RSS_HF);
		return -EINVAL;
	}
	return 0;
}

/* dev_configure: RX queue count, key and hash types of dev_conf. */
int
mana_rss_configure(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);
	struct rte_eth_rss_conf *conf = &dev->data->dev_conf.rx_adv_conf.rss_conf;
	uint16_t nrx = dev->data->nb_rx_queues;
	int ret;

	if (nrx > MANA_MAX_RXQ || (nrx > 0 && !rte_is_power_of_2(nrx))) {
		PMD_DRV_LOG(ERR, "port %u: %u RX queues; RSS needs a power of two 1..%u",
			    priv->port_id, nrx, MANA_MAX_RXQ);
		return -EINVAL;
	}
	ret = rss_check_conf(priv, conf);
	if (ret != 0)
		return ret;
	if (conf->rss_key != NULL)
		memcpy(priv->rss_key, conf->rss_key, MANA_RSS_KEY_LEN);
	if (dev->data->dev_conf.rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG)
		priv->rss_hf = conf->rss_hf;
	/* An application table outlives a configure that keeps the queue count. */
	if (nrx > 0 && (!priv->reta_set || priv->reta_nrx != nrx))
		reta_identity(priv, nrx);
	return 0;
}

static struct ibv_rwq_ind_table *
rss_table_create(struct mana_priv *priv)
{
	struct ibv_wq *wqs[MANA_MAX_RXQ];
	struct ibv_rwq_ind_table_init_attr attr = {
		.log_ind_tbl_size = rte_log2_u32(priv->reta_period),
		.ind_tbl = wqs,
		.comp_mask = 0,
	};
	struct ibv_rwq_ind_table *tbl;
	struct mana_rxq *rxq;
	uint16_t i;

	for (i = 0; i < priv->reta_period; i++) {
		rxq = priv->dev_data->rx_queues[priv->reta[i]];
		wqs[i] = rxq->wq;
	}
	tbl = mana_vs_create_rwq_ind_table(priv->ctx, &attr);
	if (tbl == NULL) {
		/* Callers return -errno: keep it across the log call, never 0. */
		int err = errno != 0 ? errno : EIO;

		PMD_DRV_LOG(ERR, "port %u: create indirection table of %u WQs: %s",
			    priv->port_id, priv->reta_period, strerror(err));
		errno = err;
	}
	return tbl;
}

static struct ibv_qp *
rss_qp_create(struct mana_priv *priv, struct ibv_rwq_ind_table *tbl)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
			     IBV_QP_INIT_ATTR_RX_HASH,
		.pd = priv->parent_pd,
		.rwq_ind_tbl = tbl,
		.rx_hash_conf = {
			.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
			.rx_hash_key_len = MANA_RSS_KEY_LEN,
			.rx_hash_key = priv->rss_key,
			.rx_hash_fields_mask = rss_hash_fields(priv->rss_hf),
		},
	};
	struct ibv_qp *qp = mana_vs_create_qp_ex(priv->ctx, &attr);

	if (qp == NULL) {
		int err = errno != 0 ? errno : EIO;	/* as in rss_table_create */

		PMD_DRV_LOG(ERR, "port %u: create RSS QP: %s", priv->port_id, strerror(err));
		errno = err;
	}
	return qp;
}

int
mana_rss_create(struct mana_priv *priv)
{
	priv->ind_table = rss_table_create(priv);
	if (priv->ind_table == NULL)
		return -errno;
	priv->rss_qp = rss_qp_create(priv, priv->ind_table);
	if (priv->rss_qp == NULL) {
		int err = errno;

		mana_rss_destroy(priv);
		return -err;
	}
	return 0;
}

void
mana_rss_destroy(struct mana_priv *priv)
{
	int ret;

	if (priv->rss_qp != NULL) {
		ret = mana_vs_destroy_qp(priv->rss_qp);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "port %u: destroy RSS QP: %s", priv->port_id,
				    strerror(-ret));
		priv->rss_qp = NULL;
	}
	if (priv->ind_table != NULL) {
		ret = mana_vs_destroy_rwq_ind_table(priv->ind_table);
		if (ret != 0)
			PMD_DRV_LOG(ERR, "port %u: destroy indirection table: %s",
				    priv->port_id, strerror(-ret));
		priv->ind_table = NULL;
	}
}

/* A started port's new key or table takes effect now (see the top of this file). */
static int
rss_apply(struct rte_eth_dev *dev)
{
	struct mana_priv *priv = mana_priv(dev);

	if (!priv->started || priv->rec_state != MANA_REC_NONE || priv->removed)
		return 0;
	return mana_rx_rebuild(dev);
}

int
mana_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct mana_priv *priv = mana_priv(dev);
	uint8_t old_key[MANA_RSS_KEY_LEN];
	uint64_t old_hf;
	int ret;

	ret = rss_check_conf(priv, conf);
	if (ret != 0)
		return ret;
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	memcpy(old_key, priv->rss_key, MANA_RSS_KEY_LEN);
	old_hf = priv->rss_hf;
	if (conf->rss_key != NULL)
		memcpy(priv->rss_key, conf->rss_key, MANA_RSS_KEY_LEN);
	priv->rss_hf = conf->rss_hf;
	ret = rss_apply(dev);
	if (ret != 0) {
		/* As mana_reta_update: the previous key stays the one in effect. */
		memcpy(priv->rss_key, old_key, MANA_RSS_KEY_LEN);
		priv->rss_hf = old_hf;
	}
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}

int
mana_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct mana_priv *priv = mana_priv(dev);

	if (conf->rss_key != NULL) {
		if (conf->rss_key_len < MANA_RSS_KEY_LEN)
			return -EINVAL;
		memcpy(conf->rss_key, priv->rss_key, MANA_RSS_KEY_LEN);
	}
	conf->rss_key_len = MANA_RSS_KEY_LEN;
	conf->rss_hf = priv->rss_hf;
	return 0;
}

/* "entries 1, 5, ..., 61": the entries the device gives the queue of entry `first`. */
static void
reta_class_str(char *buf, size_t len, uint16_t first, uint16_t period)
{
	uint16_t last = first + MANA_RETA_SIZE - period;

	if (MANA_RETA_SIZE / period == 2)
		snprintf(buf, len, "entries %u and %u", first, last);
	else if (MANA_RETA_SIZE / period == 4)
		snprintf(buf, len, "entries %u, %u, %u and %u", first, first + period,
			 first + 2 * period, last);
	else
		snprintf(buf, len, "entries %u, %u, ..., %u", first, first + period, last);
}

/* "0, 1 and 2": the distinct queues of t, ascending, into buf; returns their count. */
static uint16_t
reta_distinct(const uint16_t *t, char *buf, size_t len)
{
	bool seen[MANA_MAX_RXQ] = { false };
	uint16_t i, d = 0, n = 0;
	size_t off = 0;

	for (i = 0; i < MANA_RETA_SIZE; i++) {
		d += !seen[t[i]];
		seen[t[i]] = true;
	}
	buf[0] = '\0';
	for (i = 0; i < MANA_MAX_RXQ && off < len; i++) {
		if (!seen[i])
			continue;
		n++;
		off += snprintf(buf + off, len - off, "%s%u",
				n == 1 ? "" : n == d ? " and " : ", ", i);
	}
	return d;
}

/*
 * Whether the 64-entry table t (entries the update gives marked in upd, the
 * others kept from the table in effect) has a shape the device can take
 * with nrx RX queues (top of this file, hardware.md §6): every entry a
 * queue below nrx; P distinct queues, P a power of two (the device's table
 * holds 2^n distinct WQs); entry i = entry i mod P (the device repeats its
 * 2^n entries over the 64). Then entries 0..P-1 name each of the P queues
 * once. Returns P, or -EINVAL after one line saying which entries break
 * which rule and what would be accepted.
 */
static int
reta_check(struct mana_priv *priv, const uint16_t *t, uint64_t upd, uint16_t nrx)
{
	static const char *const how[2] = { "kept", "updated" };
	char cls[48], qs[256];
	uint16_t i, p, d;

	for (i = 0; i < MANA_RETA_SIZE; i++)
		if (t[i] >= nrx) {
			PMD_DRV_LOG(ERR, "port %u: RETA entry %u = queue %u, the port has %u RX "
				    "queues (0..%u)", priv->port_id, i, t[i], nrx, nrx - 1);
			return -EINVAL;
		}
	d = reta_distinct(t, qs, sizeof(qs));
	if (!rte_is_power_of_2(d)) {
		PMD_DRV_LOG(ERR, "port %u: RETA names %u distinct queues (%s); the device's "
			    "table holds 1, 2, 4, ... distinct queues, each once, repeated over "
			    "the %u entries", priv->port_id, d, qs, MANA_RETA_SIZE);
		return -EINVAL;
	}
	for (i = d; i < MANA_RETA_SIZE; i++) {
		p = i & (d - 1);
		if (t[i] == t[p])
			continue;
		reta_class_str(cls, sizeof(cls), p, d);
		PMD_DRV_LOG(ERR, "port %u: RETA entry %u = queue %u (%s) but entry %u = queue "
			    "%u (%s): with %u distinct queues (%s) the device repeats entries "
			    "0..%u over its %u, so %s must name the same queue", priv->port_id,
			    i, t[i], how[(upd >> i) & 1], p, t[p], how[(upd >> p) & 1], d, qs,
			    d - 1, MANA_RETA_SIZE, cls);
		return -EINVAL;
	}
	return d;
}

/*
 * Entries whose mask bit is set take the given queue, the others keep the
 * table in effect; the merged table is accepted only whole (reta_check), and
 * its P distinct queues become the period: the RX queues outside it go idle,
 * those that join it receive (on a started port, at once). It
 * is merged, checked and stored under ctl_lock, so it replaces the table in
 * effect at once or not at all: if building a started port's RX side again
 * over it fails (mana_rx_rebuild then leaves every RX queue stopped), the
 * previous table is put back, and the next start uses that one.
 */
int
mana_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf, uint16_t size)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t nrx = dev->data->nb_rx_queues;
	uint16_t t[MANA_RETA_SIZE], old[MANA_MAX_RXQ];
	uint16_t i, idx, bit, period, old_period;
	uint64_t upd = 0;
	bool old_set;
	int ret;

	if (size != MANA_RETA_SIZE) {
		PMD_DRV_LOG(ERR, "port %u: RETA size %u; the device's table has %u entries",
			    priv->port_id, size, MANA_RETA_SIZE);
		return -EINVAL;
	}
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	if (nrx == 0 || priv->reta_nrx != nrx) {
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		PMD_DRV_LOG(ERR, "port %u: RETA update before the port is configured with RX "
			    "queues", priv->port_id);
		return -EINVAL;
	}
	for (i = 0; i < MANA_RETA_SIZE; i++) {
		idx = i / RTE_ETH_RETA_GROUP_SIZE;
		bit = i % RTE_ETH_RETA_GROUP_SIZE;
		if ((conf[idx].mask >> bit) & 1) {
			t[i] = conf[idx].reta[bit];
			upd |= 1ull << i;
		} else {
			t[i] = priv->reta[i & (priv->reta_period - 1)];
		}
	}
	ret = reta_check(priv, t, upd, nrx);
	if (ret < 0) {
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		return ret;
	}
	period = (uint16_t)ret;
	if (priv->reta_set && period == priv->reta_period &&
	    memcmp(priv->reta, t, sizeof(uint16_t) * period) == 0) {
		/* The table in effect already: no reason to stop receiving. */
		rte_spinlock_recursive_unlock(&priv->ctl_lock);
		return 0;
	}
	old_period = priv->reta_period;
	memcpy(old, priv->reta, sizeof(uint16_t) * old_period);
	old_set = priv->reta_set;
	memcpy(priv->reta, t, sizeof(uint16_t) * period);
	priv->reta_period = period;
	priv->reta_set = true;
	ret = rss_apply(dev);
	if (ret != 0) {
		memcpy(priv->reta, old, sizeof(uint16_t) * old_period);
		priv->reta_period = old_period;
		priv->reta_set = old_set;
	} else if (period < nrx) {
		PMD_DRV_LOG(INFO, "port %u: RETA over %u of %u RX queues; the others receive "
			    "nothing", priv->port_id, period, nrx);
	}
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return ret;
}

int
mana_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf, uint16_t size)
{
	struct mana_priv *priv = mana_priv(dev);
	uint16_t i, idx, bit;

	if (size != MANA_RETA_SIZE) {
		PMD_DRV_LOG(ERR, "port %u: RETA size %u; the device's table has %u entries",
			    priv->port_id, size, MANA_RETA_SIZE);
		return -EINVAL;
	}
	/* The table in effect, never one half updated (mana_reta_update). */
	rte_spinlock_recursive_lock(&priv->ctl_lock);
	for (i = 0; i < MANA_RETA_SIZE; i++) {
		idx = i / RTE_ETH_RETA_GROUP_SIZE;
		bit = i % RTE_ETH_RETA_GROUP_SIZE;
		if ((conf[idx].mask >> bit) & 1)
			conf[idx].reta[bit] = priv->reta[i & (priv->reta_period - 1)];
	}
	rte_spinlock_recursive_unlock(&priv->ctl_lock);
	return 0;
}
