/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The identifiers a device hands out: queue ids, lkeys and port MACs, each
 * derived from the device's name so that runs repeat, and never the small
 * sequential numbers a driver could come to depend on.
 */

#include "model_priv.h"

static uint32_t
mm_fnv1a(const char *s, uint32_t extra)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	h = (h ^ extra) * 16777619u;
	return h;
}

uint32_t
mm_pow2_ceil(uint32_t x)
{
	uint32_t p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

/*
 * Queue ids: a bijection of a counter over 24 bits (odd multiplier, xor
 * seed), so ids are distinct, spread over the whole range (most >= 1024,
 * exercising vsq_frame) and never small sequential numbers.
 */
uint32_t
mm_new_queue_id(struct mana_model *m)
{
	uint32_t id;

	do {
		m->id_ctr++;
		id = ((m->id_ctr * 0x9E3779u) ^ m->id_seed) & 0xFFFFFFu;
	} while (id == 0);
	return id;
}

/* lkeys: xorshift-mixed counter over 32 bits (a bijection), never 0. */
uint32_t
mm_new_lkey(struct mana_model *m)
{
	uint32_t x;

	do {
		x = ++m->key_ctr * 0x85EBCA6Bu;
		x ^= m->key_seed;
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
	} while (x == 0 || mm_mr_lookup(m, x) != NULL);
	return x;
}

/* The seeds of a device's queue ids and lkeys, from its name. */
void
mm_ids_seed(struct mana_model *m)
{
	m->id_seed = mm_fnv1a(m->cfg.name, 0x5eed) & 0xFFFFFFu;
	m->key_seed = mm_fnv1a(m->cfg.name, 0x1c3e);
}

/* A port's MAC when its settings give none: 00:15:5d (Hyper-V) and a hash. */
void
mm_gen_mac(const char *name, unsigned int port, uint8_t mac[6])
{
	uint32_t h = mm_fnv1a(name, port + 1);

	mac[0] = 0x00;
	mac[1] = 0x15;
	mac[2] = 0x5d;
	mac[3] = (uint8_t)(h >> 16);
	mac[4] = (uint8_t)(h >> 8);
	mac[5] = (uint8_t)(h ^ port);
}
