/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Device settings: one table of keys, their old spellings, validators and
 * what each allows, shared by the PMD's devargs and the MANA_MODEL
 * environment (mana_model.h, doc/user_guide.md "Software device settings").
 *
 * The caller splits its string into key=value pairs (both split at ',' and
 * end the key at the first '=', since wire specs carry their own '=') and
 * hands each pair here; keys of its own (the PMD's ibdev=, model=...) it
 * handles before. Messages go to s->msg, never to a log: the PMD and the
 * replacement libibverbs each log them their own way.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mana_model.h"
#include "model_num.h"
#include "model_priv.h"
#include "model_wire.h"

#define DEV	MANA_MODEL_SETTINGS_DEVICE
#define IDENT	MANA_MODEL_SETTINGS_IDENTITY

struct mm_setting {
	const char *key;
	const char *old_key;		/* deprecated spelling, or NULL */
	unsigned int class;
	bool indexed;			/* also key<N> for port N */
	const char *allowed;		/* shown after a bad value */
	/* port: N for key<N>, -1 for the plain key; *why may add a reason */
	int (*parse)(struct mana_model_settings *s, int port, const char *val, const char **why);
};

static void
set_msg(struct mana_model_settings *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
}

/* The magnitude of s (model_num.h); hex only when allowed. */
static int
parse_magnitude(const char *s, bool hex_ok, uint64_t *out)
{
	unsigned int base = 10, d;
	uint64_t v = 0;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && s[1] != '\0') {
		return -EINVAL;		/* 010: octal in C, ten to others: neither */
	}
	if (*s == '\0')
		return -EINVAL;
	for (; *s != '\0'; s++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = (unsigned int)(tolower((unsigned char)*s) - 'a' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int
mm_parse_u64(const char *s, uint64_t max, uint64_t *out, const char **why)
{
	uint64_t v;
	int ret;

	ret = parse_magnitude(s, true, &v);
	if (ret == 0 && v > max)
		ret = -ERANGE;
	if (ret == -EINVAL && why != NULL)
		*why = MM_NUM_RULE;
	if (ret == 0)
		*out = v;
	return ret;
}

int
mm_parse_long(const char *s, long min, long max, long *out, const char **why)
{
	uint64_t mag;
	int ret;

	if (s[0] != '-') {
		ret = mm_parse_u64(s, max < 0 ? 0 : (uint64_t)max, &mag, why);
		if (ret == 0 && (long)mag < min)
			ret = -ERANGE;
		if (ret == 0)
			*out = (long)mag;
		return ret;
	}
	/* -N: decimal, not -0, only where the range is negative */
	ret = min >= 0 ? -EINVAL : parse_magnitude(s + 1, false, &mag);
	if (ret == 0 && mag == 0)
		ret = -EINVAL;
	if (ret == 0 && mag > (uint64_t)-(min + 1) + 1)
		ret = -ERANGE;
	if (ret == -EINVAL && why != NULL)
		*why = min >= 0 ? "no sign: the value is not negative" : MM_NUM_RULE;
	if (ret == 0)
		*out = -(long)(mag - 1) - 1;
	return ret;
}

/* A setting's integer: 0, or -EINVAL (the reason in *why when the syntax is bad). */
static int
parse_long(const char *val, long min, long max, long *out, const char **why)
{
	return mm_parse_long(val, min, max, out, why) == 0 ? 0 : -EINVAL;
}

static int
parse_flag(const char *val, bool *out)
{
	if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
		return -EINVAL;
	*out = val[0] == '1';
	return 0;
}

/* Value of one hex digit, -1 for anything else (strtoul would skip blanks and signs). */
static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Six bytes of exactly two hex digits each, separated by one of seps used
 * throughout (the length first: a shorter value has no separator to look at).
 */
int
mm_parse_mac(const char *val, const char *seps, uint8_t mac[6])
{
	unsigned int i;
	char sep;

	if (strlen(val) != 17)
		return -EINVAL;
	sep = val[2];
	if (sep == '\0' || strchr(seps, sep) == NULL)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		const char *p = val + 3 * i;
		int hi = hex_digit(p[0]), lo = hex_digit(p[1]);

		if (hi < 0 || lo < 0 || (i < 5 && p[2] != sep))
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int
set_string(char *dst, size_t size, const char *val)
{
	size_t len = strlen(val);

	if (len == 0 || len >= size)
		return -EINVAL;
	memcpy(dst, val, len + 1);
	return 0;
}

/* The port a mac/wire key sets: N for key<N>, else the next of the sequence. */
static int
next_port(int port, uint8_t *seq, const char **why)
{
	if (port >= 0)
		return port;
	if (*seq >= MANA_MODEL_MAX_PORTS) {
		*why = "given more than 8 times";
		return -1;
	}
	return (*seq)++;
}

static int
set_ports(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	if (parse_long(val, 1, MANA_MODEL_MAX_PORTS, &v, why) != 0)
		return -EINVAL;
	s->cfg.nports = (uint8_t)v;
	s->ports_given = true;
	return 0;
}

/* Each port's mac and wire are set once (mac= and wire= fill the ports in turn). */
static int
port_once(uint8_t *set, int port, const char *what, const char **why)
{
	static __thread char reason[96];

	if ((*set & (1u << port)) != 0) {
		snprintf(reason, sizeof(reason), "port %d's %s is given twice", port, what);
		*why = reason;
		return -1;
	}
	*set |= (uint8_t)(1u << port);
	return 0;
}

static int
set_mac(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	uint8_t mac[6];

	if (mm_parse_mac(val, ":-", mac) != 0)
		return -EINVAL;
	port = next_port(port, &s->nmac, why);
	if (port < 0 || port_once(&s->mac_ports, port, "mac", why) != 0)
		return -EINVAL;
	memcpy(s->cfg.mac[port], mac, sizeof(mac));
	s->cfg.mac_set[port] = true;
	s->ports_named |= 1u << port;
	return 0;
}

static int
set_wire(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	struct mana_model_wire_cfg wire;

	if (mana_model_parse_wire(val, &wire, why) != 0)
		return -EINVAL;
	port = next_port(port, &s->nwire, why);
	if (port < 0 || port_once(&s->wire_ports, port, "wire", why) != 0)
		return -EINVAL;
	s->cfg.wire[port] = wire;
	s->ports_named |= 1u << port;
	return 0;
}

static int
set_doorbell(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	(void)port;
	(void)why;
	if (strcmp(val, "queue") == 0 || strcmp(val, "object") == 0) {
		s->cfg.shared_doorbell = false;
		s->cfg.doorbell_untrapped = false;
	} else if (strcmp(val, "shared") == 0 || strcmp(val, "memory") == 0) {
		s->cfg.shared_doorbell = true;
		s->cfg.doorbell_untrapped = val[0] == 'm';
	} else {
		return -EINVAL;
	}
	return 0;
}

static int
set_coalesce(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	(void)port;
	(void)why;
	return parse_flag(val, &s->cfg.rx_coalesce);
}

/*
 * The CPUs this process may run on: its affinity when this library loaded,
 * before EAL pins the main thread to its lcore (plugins load first). The
 * kernel reports only online CPUs in it.
 */
static cpu_set_t mm_start_cpus;
static bool mm_start_cpus_known;

__attribute__((constructor)) static void
mm_record_start_cpus(void)
{
	mm_start_cpus_known = sched_getaffinity(0, sizeof(mm_start_cpus), &mm_start_cpus) == 0;
}

int
mm_thread_allow_start_cpus(pthread_t t)
{
	if (!mm_start_cpus_known)
		return ENOENT;
	return pthread_setaffinity_np(t, sizeof(mm_start_cpus), &mm_start_cpus);
}

/* "0-3,6" for the reason of a refused engine_cpu. */
static void
format_cpus(const cpu_set_t *set, char *buf, size_t size)
{
	size_t off = 0;
	int c, end;

	buf[0] = '\0';
	for (c = 0; c < CPU_SETSIZE && off < size; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		for (end = c; end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set); end++)
			;
		off += (size_t)snprintf(buf + off, size - off, end > c ? "%s%d-%d" : "%s%d",
					off == 0 ? "" : ",", c, end);
		c = end;
	}
}

/* One CPU of an engine_cpu list: as the single value always was. */
static int
parse_engine_cpu(const char *val, int *cpu, const char **why)
{
	static __thread char reason[160];
	char cpus[96];
	long v;

	if (parse_long(val, -1, 1023, &v, why) != 0)
		return -EINVAL;
	if (v >= 0 && mm_start_cpus_known && !CPU_ISSET(v, &mm_start_cpus)) {
		format_cpus(&mm_start_cpus, cpus, sizeof(cpus));
		snprintf(reason, sizeof(reason), "CPU %ld is offline or outside this process's "
			 "CPU affinity (%s)", v, cpus);
		*why = reason;
		return -EINVAL;
	}
	*cpu = (int)v;
	return 0;
}

/*
 * engine_cpu=C or C:C:...: one engine thread per entry, thread i pinned to
 * the i-th (doc/user_guide.md "Engine threads"). ':' since devargs split at ','.
 */
static int
set_engine_cpu(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	static __thread char reason[320];
	int cpu[MANA_MODEL_MAX_ENGINES];
	unsigned int n = 0;
	const char *at = val;

	(void)port;
	for (;;) {
		const char *end = strchr(at, ':');
		size_t len = end != NULL ? (size_t)(end - at) : strlen(at);
		char one[32];

		if (n == MANA_MODEL_MAX_ENGINES) {
			*why = "more than 16 CPUs (one engine thread each, at most 16)";
			return -EINVAL;
		}
		if (len >= sizeof(one)) {
			*why = MM_NUM_RULE;
			return -EINVAL;
		}
		memcpy(one, at, len);
		one[len] = '\0';
		if (parse_engine_cpu(one, &cpu[n], why) != 0) {
			if (end != NULL || n != 0) {
				snprintf(reason, sizeof(reason), "entry %u '%s'%s%s", n + 1, one,
					 *why != NULL ? ": " : "", *why != NULL ? *why : "");
				*why = reason;
			}
			return -EINVAL;
		}
		n++;
		if (end == NULL)
			break;
		at = end + 1;
	}
	memcpy(s->cfg.engine_cpu, cpu, n * sizeof(cpu[0]));
	for (unsigned int i = n; i < MANA_MODEL_MAX_ENGINES; i++)
		s->cfg.engine_cpu[i] = -1;
	s->engine_ncpu = (uint8_t)n;
	s->engine_cpu_given = true;
	return 0;
}

static int
set_engine_threads(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	if (parse_long(val, 1, MANA_MODEL_MAX_ENGINES, &v, why) != 0)
		return -EINVAL;
	s->cfg.engine_threads = (uint8_t)v;
	s->engine_threads_given = true;
	return 0;
}

static int
set_numa(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	(void)why;
	if (parse_long(val, -1, 1023, &v, why) != 0)
		return -EINVAL;
	s->cfg.numa_node = (int)v;
	s->numa_given = true;
	return 0;
}

static int
set_max_qp(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	(void)why;
	if (parse_long(val, 1, 65535, &v, why) != 0)
		return -EINVAL;
	s->cfg.max_qp = (uint32_t)v;
	return 0;
}

static int
set_max_qp_wr(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	if (parse_long(val, 1, GDMA_ETH_MAX_QUEUE_ENTRIES, &v, why) != 0)
		return -EINVAL;
	s->cfg.max_qp_wr = (uint32_t)v;
	return 0;
}

static int
set_rdma_core(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	if (parse_long(val, MM_RDMA_CORE_MIN, MM_RDMA_CORE_MAX, &v, why) != 0)
		return -EINVAL;
	s->cfg.rdma_core = (uint32_t)v;
	return 0;
}

static int
set_cqe_batch(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	(void)why;
	if (parse_long(val, 1, 64, &v, why) != 0)
		return -EINVAL;
	s->cfg.cqe_batch = (uint32_t)v;
	return 0;
}

static int
set_part(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	long v;

	(void)port;
	(void)why;
	if (parse_long(val, 0, 2, &v, why) != 0 || v == 1)
		return -EINVAL;
	s->cfg.vendor_part_id = (uint16_t)v;
	return 0;
}

static int
set_name(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	(void)port;
	(void)why;
	if (strpbrk(val, " /\t") != NULL)
		return -EINVAL;
	return set_string(s->cfg.name, sizeof(s->cfg.name), val);
}

static int
set_pci(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	static const char form[] = "hhhh:hh:hh.h";
	unsigned int i;

	(void)port;
	(void)why;
	if (strlen(val) != sizeof(form) - 1)
		return -EINVAL;
	for (i = 0; form[i] != '\0'; i++)
		if (form[i] == 'h' ? !isxdigit((unsigned char)val[i]) : val[i] != form[i])
			return -EINVAL;
	/* device 0..0x1f, function 0..7 */
	if (strtoul(val + 8, NULL, 16) > 0x1f || val[11] > '7')
		return -EINVAL;
	return set_string(s->cfg.pci_bdf, sizeof(s->cfg.pci_bdf), val);
}

static int
set_sysfs(struct mana_model_settings *s, int port, const char *val, const char **why)
{
	(void)port;
	(void)why;
	return set_string(s->cfg.sysfs_root, sizeof(s->cfg.sysfs_root), val);
}

static const struct mm_setting mm_settings[] = {
	{ "ports", NULL, DEV, false, "an integer 1..8, given once", set_ports },
	{ "mac", NULL, DEV, true, "a MAC xx:xx:xx:xx:xx:xx; the i-th mac= is port i's, "
	  "mac<N>= port N's (N 0..7)", set_mac },
	{ "wire", NULL, DEV, true,
	  "none|loop|pair:<port>|pair:<dev>/<port>|gen[:k=v]...|pcap:...|tap:<if>; "
	  "the i-th wire= is port i's, wire<N>= port N's (N 0..7)", set_wire },
	{ "doorbell", NULL, DEV, false, "queue, shared or memory", set_doorbell },
	{ "coalesce", "rx_coalesce", DEV, false, "0 or 1", set_coalesce },
	{ "cqe_batch", NULL, DEV, false, "an integer 1..64", set_cqe_batch },
	{ "engine_cpu", "cpu", DEV, false, "an integer -1..1023 (-1: not pinned), a CPU this "
	  "process may run on; or up to 16 of them separated by ':', one per engine thread",
	  set_engine_cpu },
	{ "engine_threads", NULL, DEV, false, "an integer 1..16 (engine threads; with an "
	  "engine_cpu list, its length)", set_engine_threads },
	{ "numa", NULL, DEV, false, "an integer -1..1023 (-1: any node)", set_numa },
	{ "max_qp", NULL, DEV, false, "an integer 1..65535", set_max_qp },
	{ "part", NULL, DEV, false, "0 or 2 (vendor_part_id)", set_part },
	{ "max_qp_wr", NULL, DEV, false, "an integer 1..2048 (entries per queue the kernel "
	  "reports and allows)", set_max_qp_wr },
	{ "rdma_core", NULL, DEV, false, "an integer 44..999 (rdma-core version whose provider "
	  "is mirrored; below 49 it refuses more than 256 entries)", set_rdma_core },
	{ "name", NULL, IDENT, false, "a device name of 1..31 characters, no blank or '/'",
	  set_name },
	{ "pci", NULL, IDENT, false, "a PCI address dddd:bb:dd.f", set_pci },
	{ "sysfs", NULL, IDENT, false, "a directory path of 1..255 characters", set_sysfs },
};

#define MM_NSETTINGS	(sizeof(mm_settings) / sizeof(mm_settings[0]))
_Static_assert(MM_NSETTINGS <= 32, "mana_model_settings.keys_given has a bit per key");

/* "wire3" for prefix "wire": 3; -1 if key is not prefix followed by one digit 0..7. */
static int
indexed_port(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(key, prefix, n) != 0 || key[n] < '0' ||
	    key[n] >= '0' + MANA_MODEL_MAX_PORTS || key[n + 1] != '\0')
		return -1;
	return key[n] - '0';
}

/* The setting key names (canonical, old or indexed); NULL if none in s->classes. */
static const struct mm_setting *
find_setting(const struct mana_model_settings *s, const char *key, int *port, bool *old)
{
	unsigned int i;

	for (i = 0; i < MM_NSETTINGS; i++) {
		const struct mm_setting *st = &mm_settings[i];

		if ((st->class & s->classes) == 0)
			continue;
		*port = -1;
		*old = false;
		if (strcmp(key, st->key) == 0)
			return st;
		if (st->old_key != NULL && strcmp(key, st->old_key) == 0) {
			*old = true;
			return st;
		}
		if (st->indexed) {
			*port = indexed_port(key, st->key);
			if (*port >= 0)
				return st;
		}
	}
	return NULL;
}

void
mana_model_settings_init(struct mana_model_settings *s, const char *name, unsigned int classes,
			 const char *origin)
{
	memset(s, 0, sizeof(*s));
	mana_model_config_init(&s->cfg, name);
	s->classes = classes;
	s->origin = origin != NULL ? origin : "setting";
}

int
mana_model_settings_set(struct mana_model_settings *s, const char *key, const char *val)
{
	const struct mm_setting *st;
	const char *why = NULL;
	bool old;
	int port;

	s->msg[0] = '\0';
	st = find_setting(s, key, &port, &old);
	if (st == NULL) {
		set_msg(s, "unknown key '%s'", key);
		return -ENOENT;
	}
	/* One rule for every key: given once; mac= and wire= are lists, one per port. */
	if (!st->indexed && (s->keys_given & (1u << (st - mm_settings))) != 0 && val != NULL)
		why = "given twice";
	if (val == NULL || why != NULL || st->parse(s, port, val, &why) != 0) {
		size_t vlen = val != NULL ? strlen(val) : 0;

		set_msg(s, "bad value '%.*s%s' for key '%s'%s%s (allowed: %s)",
			(int)(vlen > MANA_MODEL_SETTINGS_VAL_SHOWN ? MANA_MODEL_SETTINGS_VAL_SHOWN : vlen),
			val != NULL ? val : "", vlen > MANA_MODEL_SETTINGS_VAL_SHOWN ? "..." : "",
			key, why != NULL ? ": " : "", why != NULL ? why : "", st->allowed);
		return -EINVAL;
	}
	s->any_given = true;
	s->keys_given |= 1u << (st - mm_settings);
	if (old)
		set_msg(s, "%s %s is deprecated, use %s", s->origin, key, st->key);
	else if (st->parse == set_doorbell && strcmp(val, "object") == 0)
		set_msg(s, "%s %s=object is deprecated, use %s=queue", s->origin, key, key);
	return 0;
}

int
mana_model_settings_finish(struct mana_model_settings *s)
{
	unsigned int highest = 0;
	unsigned int p;

	s->msg[0] = '\0';
	for (p = 0; p < MANA_MODEL_MAX_PORTS; p++)
		if (s->ports_named & (1u << p))
			highest = p + 1;
	if (!s->ports_given)
		s->cfg.nports = (uint8_t)(highest > 0 ? highest : 1);
	if (highest > s->cfg.nports) {
		set_msg(s, "a mac or wire key sets port %u but ports=%u (ports 0..%u; at most one "
			"mac and one wire per port)", highest - 1, s->cfg.nports,
			s->cfg.nports - 1u);
		return -EINVAL;
	}
	if (s->engine_cpu_given && s->engine_threads_given &&
	    s->engine_ncpu != s->cfg.engine_threads) {
		set_msg(s, "engine_threads=%u but engine_cpu names %u CPU%s (one CPU per engine "
			"thread: give as many, or leave engine_threads out)", s->cfg.engine_threads,
			s->engine_ncpu, s->engine_ncpu == 1 ? "" : "s");
		return -EINVAL;
	}
	if (s->engine_cpu_given)
		s->cfg.engine_threads = s->engine_ncpu;
	/* The device's name is not known here: pair:<name>/<port> is checked at create. */
	return mm_wire_pairs_check(&s->cfg, NULL, s->msg, sizeof(s->msg));
}

const char *
mana_model_settings_key(unsigned int classes, unsigned int i)
{
	static const char *const indexed[] = { "mac<N>", "wire<N>" };
	unsigned int k, n = 0;

	for (k = 0; k < MM_NSETTINGS; k++) {
		if ((mm_settings[k].class & classes) == 0)
			continue;
		if (n++ == i)
			return mm_settings[k].key;
		if (mm_settings[k].indexed && n++ == i)
			return indexed[mm_settings[k].key[0] == 'w'];
	}
	return NULL;
}
