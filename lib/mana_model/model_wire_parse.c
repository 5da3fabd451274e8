/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Wire specs (mana_model_parse_wire) and the check every wire
 * configuration passes before a wire opens:
 *
 *   none | loop | pair:<port> | pair:<device>/<port>
 *   gen[:flows=N][:len=N][:proto=udp|tcp][:ipv6=0|1][:rate=PPS][:count=N]
 *      [:lossless=0|1][:dmac=02-00-00-00-00-01][:dip=a.b.c.d][:seed=N]
 *      [:vlan=ID[:pcp=P]]
 *   pcap:rx=<file>[:tx=<file>][:loop=0|1] | pcap:tx=<file>
 *   tap:<ifname>
 *
 * Numbers follow the settings' one rule (model_num.h: decimal without a
 * leading 0 or 0x hex, no sign or blanks). Each key at most once. File names cannot contain
 * ':' (the separator). gen len: from the smallest frame holding the headers
 * and the 12-byte payload header (60 UDP/IPv4, 66 TCP/IPv4, 74 UDP/IPv6,
 * 86 TCP/IPv6; 4 more with a VLAN tag) to MANA_MODEL_MAX_FRAME; when len is
 * not given it is 64 or that minimum if larger. flows 1..MM_GEN_MAX_FLOWS,
 * rate 0..1e9. vlan: VLAN ID 0..4095 of an 802.1Q tag in every frame; pcp:
 * its priority 0..7 (only with vlan; default 0); DEI 0.
 */

/* POSIX/GNU interfaces (clock_gettime, strnlen, posix_memalign...) under -std=c11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_num.h"
#include "model_wire_priv.h"

#define SPEC_MAX	1024
#define GEN_DEFAULT_LEN	64
#define GEN_VLAN_ID_MASK	0xFFFu
#define GEN_VLAN_PCP_SHIFT	13

/* An integer <= max by the settings' one rule (model_num.h). */
static bool
parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	return mm_parse_u64(s, max, out, NULL) == 0;
}

static bool
parse_bool(const char *s, bool *out)
{
	if (strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
		return false;
	*out = s[0] == '1';
	return true;
}

/* Device names: letters, digits, '_', '-', '.'. */
static bool
name_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == 0 || n >= max)
		return false;
	for (; *s != '\0'; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	}
	return true;
}

/* Linux interface names (dev_valid_name): no '/', ':' or blanks, not "." or "..". */
static bool
ifname_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == 0 || n >= max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	return strpbrk(s, "/: \t\n\r\v\f") == NULL;
}

static int
parse_pair(char *arg, struct mana_model_wire_cfg *cfg, const char **why)
{
	char *slash = strchr(arg, '/');
	const char *port = arg;
	uint64_t v;

	cfg->type = MANA_MODEL_WIRE_PAIR;
	if (slash != NULL) {
		*slash = '\0';
		port = slash + 1;
		if (!name_ok(arg, MANA_MODEL_NAME_LEN)) {
			*why = "pair: device name must be 1..31 of [A-Za-z0-9_.-]";
			return -EINVAL;
		}
		strcpy(cfg->pair.dev, arg);
	}
	if (!parse_u64(port, MANA_MODEL_MAX_PORTS - 1, &v)) {
		*why = "pair: port must be a number 0..7";
		return -EINVAL;
	}
	cfg->pair.port = (uint8_t)v;
	return 0;
}

/* One gen key=value; bit is the key's bit in *seen. */
static int
parse_gen_kv(const char *key, const char *val, struct mana_model_gen_cfg *g, uint32_t *seen,
	     const char **why)
{
	static const char *const keys[] = { "flows", "len", "proto", "ipv6", "rate", "count",
					    "lossless", "dmac", "dip", "seed", "vlan", "pcp" };
	struct in_addr a;
	uint64_t v = 0;
	unsigned int k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(key, keys[k]) == 0)
			break;
	if (k == sizeof(keys) / sizeof(keys[0])) {
		*why = "gen: unknown key (flows, len, proto, ipv6, rate, count, lossless, dmac, "
		       "dip, seed, vlan, pcp)";
		return -EINVAL;
	}
	if (*seen & (1u << k)) {
		*why = "gen: a key is given twice";
		return -EINVAL;
	}
	*seen |= 1u << k;
	switch (k) {
	case 0:
		*why = "gen: flows must be 1..65536";
		if (!parse_u64(val, MM_GEN_MAX_FLOWS, &v) || v == 0)
			return -EINVAL;
		g->flows = (uint32_t)v;
		break;
	case 1:
		*why = "gen: len must be a number (bytes without FCS) up to 9216";
		if (!parse_u64(val, MANA_MODEL_MAX_FRAME, &v))
			return -EINVAL;
		g->frame_len = (uint32_t)v;
		break;
	case 2:
		*why = "gen: proto must be udp or tcp";
		if (strcmp(val, "udp") != 0 && strcmp(val, "tcp") != 0)
			return -EINVAL;
		g->proto = val[0] == 't' ? MANA_MODEL_GEN_TCP : MANA_MODEL_GEN_UDP;
		break;
	case 3:
		*why = "gen: ipv6 must be 0 or 1";
		return parse_bool(val, &g->ipv6) ? 0 : -EINVAL;
	case 4:
		*why = "gen: rate must be 0..1000000000 frames/s (0: unlimited)";
		if (!parse_u64(val, MM_GEN_MAX_RATE, &g->rate_pps))
			return -EINVAL;
		break;
	case 5:
		*why = "gen: count must be a number (0: unlimited)";
		return parse_u64(val, UINT64_MAX, &g->count) ? 0 : -EINVAL;
	case 6:
		*why = "gen: lossless must be 0 or 1";
		return parse_bool(val, &g->lossless) ? 0 : -EINVAL;
	case 7:
		*why = "gen: dmac must be xx-xx-xx-xx-xx-xx (hex)";
		return mm_parse_mac(val, "-", g->dst_mac);
	case 8:
		*why = "gen: dip must be a dotted IPv4 address a.b.c.d";
		if (inet_pton(AF_INET, val, &a) != 1)
			return -EINVAL;
		g->dst_ip_base = ntohl(a.s_addr);
		break;
	case 9:
		*why = "gen: seed must be a number 0..4294967295";
		if (!parse_u64(val, UINT32_MAX, &v))
			return -EINVAL;
		g->seed = (uint32_t)v;
		break;
	case 10:
		*why = "gen: vlan must be a VLAN ID 0..4095";
		if (!parse_u64(val, GEN_VLAN_ID_MASK, &v))
			return -EINVAL;
		g->vlan = true;
		g->vlan_tci = (uint16_t)((g->vlan_tci & ~GEN_VLAN_ID_MASK) | v);
		break;
	default:
		*why = "gen: pcp must be a priority 0..7";
		if (!parse_u64(val, 7, &v))
			return -EINVAL;
		g->vlan_tci = (uint16_t)((g->vlan_tci & GEN_VLAN_ID_MASK) |
					 v << GEN_VLAN_PCP_SHIFT);
		break;
	}
	return 0;
}

static int
parse_gen(char *rest, struct mana_model_wire_cfg *cfg, const char **why)
{
	struct mana_model_gen_cfg *g = &cfg->gen;
	uint32_t seen = 0;
	char *tok, *eq;
	int ret;

	cfg->type = MANA_MODEL_WIRE_GEN;
	g->flows = 1;
	while ((tok = strsep(&rest, ":")) != NULL) {
		eq = strchr(tok, '=');
		if (eq == NULL) {
			*why = "gen: options are key=value separated by ':'";
			return -EINVAL;
		}
		*eq = '\0';
		ret = parse_gen_kv(tok, eq + 1, g, &seen, why);
		if (ret != 0)
			return ret;
	}
	if ((seen & (1u << 11)) && !g->vlan) {
		*why = "gen: pcp needs vlan";
		return -EINVAL;
	}
	if (!(seen & (1u << 1))) {
		g->frame_len = mm_gen_min_len(g->proto, g->ipv6, g->vlan);
		if (g->frame_len < GEN_DEFAULT_LEN)
			g->frame_len = GEN_DEFAULT_LEN;
	}
	return 0;
}

static int
parse_pcap(char *rest, struct mana_model_wire_cfg *cfg, const char **why)
{
	char *tok, *eq, *dst;
	bool seen_loop = false;

	cfg->type = MANA_MODEL_WIRE_PCAP;
	while ((tok = strsep(&rest, ":")) != NULL) {
		eq = strchr(tok, '=');
		if (eq == NULL) {
			*why = "pcap: options are rx=<file>, tx=<file>, loop=0|1";
			return -EINVAL;
		}
		*eq++ = '\0';
		if (strcmp(tok, "loop") == 0) {
			*why = "pcap: loop must be 0 or 1, given once";
			if (seen_loop || !parse_bool(eq, &cfg->pcap.loop_file))
				return -EINVAL;
			seen_loop = true;
			continue;
		}
		if (strcmp(tok, "rx") != 0 && strcmp(tok, "tx") != 0) {
			*why = "pcap: unknown key (rx, tx, loop)";
			return -EINVAL;
		}
		dst = tok[0] == 'r' ? cfg->pcap.rx : cfg->pcap.tx;
		*why = "pcap: rx/tx need a file name of 1..255 bytes, given once";
		if (dst[0] != '\0' || *eq == '\0' || strlen(eq) >= MANA_MODEL_PATH_LEN)
			return -EINVAL;
		strcpy(dst, eq);
	}
	return 0;
}

static int
parse_spec(char *buf, struct mana_model_wire_cfg *cfg, const char **why)
{
	char *rest = strchr(buf, ':');

	if (rest != NULL)
		*rest++ = '\0';
	if (strcmp(buf, "none") == 0 || strcmp(buf, "loop") == 0) {
		cfg->type = buf[0] == 'n' ? MANA_MODEL_WIRE_NONE : MANA_MODEL_WIRE_LOOP;
		*why = "none and loop take no options";
		return rest == NULL ? 0 : -EINVAL;
	}
	if (strcmp(buf, "pair") == 0) {
		*why = "pair needs :<port> or :<device>/<port>";
		return rest == NULL ? -EINVAL : parse_pair(rest, cfg, why);
	}
	if (strcmp(buf, "gen") == 0)
		return parse_gen(rest, cfg, why);
	if (strcmp(buf, "pcap") == 0)
		return parse_pcap(rest, cfg, why);
	if (strcmp(buf, "tap") == 0) {
		cfg->type = MANA_MODEL_WIRE_TAP;
		*why = "tap needs :<ifname> (1..15 bytes, no '/', ':' or blanks)";
		if (rest == NULL || !ifname_ok(rest, sizeof(cfg->tap.ifname)))
			return -EINVAL;
		strcpy(cfg->tap.ifname, rest);
		return 0;
	}
	*why = "unknown wire type (none, loop, pair, gen, pcap, tap)";
	return -EINVAL;
}

int
mana_model_parse_wire(const char *spec, struct mana_model_wire_cfg *cfg, const char **why)
{
	struct mana_model_wire_cfg c;
	const char *dummy;
	char buf[SPEC_MAX];
	int ret;

	if (why == NULL)
		why = &dummy;
	*why = "no wire spec";
	if (spec == NULL || cfg == NULL)
		return -EINVAL;
	if (strnlen(spec, SPEC_MAX) >= SPEC_MAX) {
		*why = "wire spec too long";
		return -EINVAL;
	}
	strcpy(buf, spec);
	memset(&c, 0, sizeof(c));
	ret = parse_spec(buf, &c, why);
	if (ret == 0)
		ret = mm_wire_cfg_check(&c, why);
	if (ret != 0)
		return ret;
	*cfg = c;	/* cfg untouched on error */
	*why = NULL;
	return 0;
}

static int
gen_cfg_check(const struct mana_model_gen_cfg *g, const char **why)
{
	if (g->flows == 0 || g->flows > MM_GEN_MAX_FLOWS) {
		*why = "gen: flows must be 1..65536";
		return -EINVAL;
	}
	if (g->proto != MANA_MODEL_GEN_UDP && g->proto != MANA_MODEL_GEN_TCP) {
		*why = "gen: proto must be udp or tcp";
		return -EINVAL;
	}
	if (!g->vlan && g->vlan_tci != 0) {
		*why = "gen: a VLAN tag (vlan_tci) without vlan";
		return -EINVAL;
	}
	if (g->frame_len < mm_gen_min_len(g->proto, g->ipv6, g->vlan) ||
	    g->frame_len > MANA_MODEL_MAX_FRAME) {
		*why = "gen: len too small for the headers (min 60 udp/ipv4, 66 tcp/ipv4, "
		       "74 udp/ipv6, 86 tcp/ipv6, 4 more with vlan) or above 9216";
		return -EINVAL;
	}
	if (g->rate_pps > MM_GEN_MAX_RATE) {
		*why = "gen: rate must be 0..1000000000 frames/s (0: unlimited)";
		return -EINVAL;
	}
	return 0;
}

int
mm_wire_cfg_check(const struct mana_model_wire_cfg *cfg, const char **why)
{
	switch (cfg->type) {
	case MANA_MODEL_WIRE_NONE:
	case MANA_MODEL_WIRE_LOOP:
		return 0;
	case MANA_MODEL_WIRE_PAIR:
		*why = "pair: port must be 0..7 and the device name 0..31 of [A-Za-z0-9_.-]";
		if (cfg->pair.port >= MANA_MODEL_MAX_PORTS ||
		    (cfg->pair.dev[0] != '\0' && !name_ok(cfg->pair.dev, MANA_MODEL_NAME_LEN)))
			return -EINVAL;
		return 0;
	case MANA_MODEL_WIRE_GEN:
		return gen_cfg_check(&cfg->gen, why);
	case MANA_MODEL_WIRE_PCAP:
		*why = "pcap: needs rx=<file> and/or tx=<file> (names < 256 bytes); "
		       "loop only with rx";
		if (strnlen(cfg->pcap.rx, MANA_MODEL_PATH_LEN) >= MANA_MODEL_PATH_LEN ||
		    strnlen(cfg->pcap.tx, MANA_MODEL_PATH_LEN) >= MANA_MODEL_PATH_LEN ||
		    (cfg->pcap.rx[0] == '\0' && cfg->pcap.tx[0] == '\0') ||
		    (cfg->pcap.loop_file && cfg->pcap.rx[0] == '\0'))
			return -EINVAL;
		return 0;
	case MANA_MODEL_WIRE_TAP:
		*why = "tap: ifname must be 1..15 bytes, no '/', ':' or blanks";
		return ifname_ok(cfg->tap.ifname, sizeof(cfg->tap.ifname)) ? 0 : -EINVAL;
	default:
		*why = "unknown wire type";
		return -EINVAL;
	}
}

static const char *const wire_type_names[] = {
	[MANA_MODEL_WIRE_NONE] = "none", [MANA_MODEL_WIRE_LOOP] = "loop",
	[MANA_MODEL_WIRE_PAIR] = "pair", [MANA_MODEL_WIRE_GEN] = "gen",
	[MANA_MODEL_WIRE_PCAP] = "pcap", [MANA_MODEL_WIRE_TAP] = "tap",
};

const char *
mm_wire_type_name(enum mana_model_wire_type type)
{
	return (unsigned int)type < sizeof(wire_type_names) / sizeof(wire_type_names[0]) ?
	       wire_type_names[type] : "unknown";
}

/* A pair end that names a port of device `name` itself (NULL: the name is not known yet). */
static bool
pair_is_local(const struct mana_model_wire_cfg *w, const char *name)
{
	return w->pair.dev[0] == '\0' || (name != NULL && strcmp(w->pair.dev, name) == 0);
}

int
mm_wire_pairs_check(const struct mana_model_config *cfg, const char *name, char *msg,
		    size_t size)
{
	unsigned int i, j;

	for (i = 0; i < cfg->nports && i < MANA_MODEL_MAX_PORTS; i++) {
		const struct mana_model_wire_cfg *w = &cfg->wire[i], *back;

		if (w->type != MANA_MODEL_WIRE_PAIR || !pair_is_local(w, name))
			continue;
		j = w->pair.port;
		if (j >= cfg->nports) {
			snprintf(msg, size, "port %u: wire pair:%u names port %u, but the device "
				 "has %u port%s (ports=%u for more); a pair cable joins two ports "
				 "that name each other", i, j, j, cfg->nports,
				 cfg->nports == 1 ? "" : "s", j + 1);
			return -EINVAL;
		}
		back = &cfg->wire[j];
		if (back->type != MANA_MODEL_WIRE_PAIR || !pair_is_local(back, name) ||
		    back->pair.port != i) {
			snprintf(msg, size, "port %u: wire pair:%u, but port %u's wire is %s%s, "
				 "not pair:%u; both ends of a pair cable name each other", i, j, j,
				 mm_wire_type_name(back->type),
				 back->type == MANA_MODEL_WIRE_PAIR ? " to another port" : "", i);
			return -EINVAL;
		}
	}
	return 0;
}
