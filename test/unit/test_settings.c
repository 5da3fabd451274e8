/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The device settings parser (model_settings.c) that devargs and MANA_MODEL
 * share: every key with good values fills the config it names, bad values
 * fail with the line saying what is allowed, old spellings map to the new
 * ones with a deprecation note, keys outside the caller's classes are
 * unknown, and finish derives and checks the port count.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sched_getaffinity */
#endif
#include <sched.h>

#include "unit.h"
#include "mana_model.h"

static struct mana_model_settings s;

/* The last CPU this process may run on (as the parser sees it), and one it may not; -1 if none. */
static int
cpu_allowed(bool allowed)
{
	cpu_set_t set;
	int c, found = -1;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (c = 0; c < 1024; c++)
		if ((CPU_ISSET(c, &set) != 0) == allowed)
			found = c;
	return found;
}

static void
start(unsigned int classes)
{
	mana_model_settings_init(&s, "st0", classes, "devarg");
}

/* key=val accepted without a note */
static bool
set_ok(const char *key, const char *val)
{
	int ret = mana_model_settings_set(&s, key, val);

	return CHECK_MSG(ret == 0 && s.msg[0] == '\0', "%s=%s: %d '%s'", key, val, ret, s.msg);
}

/*
 * key=val accepted again: a key is given once (test_repeats), so the value
 * checks that try several values of one key forget that it was given.
 */
static bool
set_again(const char *key, const char *val)
{
	s.keys_given = 0;
	return set_ok(key, val);
}

/* key=val refused with ret and a message containing want */
static bool
set_bad(const char *key, const char *val, int ret_want, const char *want)
{
	int ret = mana_model_settings_set(&s, key, val);

	return CHECK_MSG(ret == ret_want && strstr(s.msg, want) != NULL,
			 "%s=%s: %d '%s', want %d '%s'", key, val ? val : "(null)", ret, s.msg,
			 ret_want, want);
}

/* key=val refused for its value, not as a second value (set_again) */
static bool
bad_again(const char *key, const char *val, int ret_want, const char *want)
{
	s.keys_given = 0;
	return set_bad(key, val, ret_want, want);
}

static void
test_defaults(void)
{
	start(MANA_MODEL_SETTINGS_DEVICE);
	CHECK(strcmp(s.cfg.name, "st0") == 0);
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.nports, 1);
	CHECK_EQ(s.cfg.engine_cpu[0], -1);
	CHECK_EQ(s.cfg.numa_node, -1);
	CHECK(!s.cfg.shared_doorbell);
	CHECK(s.cfg.rx_coalesce);
	CHECK_EQ(s.cfg.vendor_part_id, 2);
	CHECK_EQ(s.cfg.wire[0].type, MANA_MODEL_WIRE_LOOP);
	CHECK(!s.any_given && !s.engine_cpu_given && !s.numa_given && !s.ports_given);
	CHECK(!s.engine_threads_given);
}

/* The default thread count: MANA_MODEL_ENGINE_THREADS when it is 1..16, else 1. */
static void
test_engine_threads_env(void)
{
	const char *env = getenv(MANA_MODEL_ENGINE_THREADS_ENV);
	char *saved = env != NULL ? strdup(env) : NULL;
	struct mana_model_config cfg;

	unsetenv(MANA_MODEL_ENGINE_THREADS_ENV);
	mana_model_config_init(&cfg, "st0");
	CHECK_EQ(cfg.engine_threads, 1);
	setenv(MANA_MODEL_ENGINE_THREADS_ENV, "3", 1);
	mana_model_config_init(&cfg, "st0");
	CHECK_EQ(cfg.engine_threads, 3);
	for (unsigned int i = 0; i < MANA_MODEL_MAX_ENGINES; i++)
		CHECK_EQ(cfg.engine_cpu[i], -1);
	/* given keys win over it */
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("engine_cpu", "-1");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.engine_threads, 1);
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("engine_threads", "2");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.engine_threads, 2);
	setenv(MANA_MODEL_ENGINE_THREADS_ENV, "17", 1);
	mana_model_config_init(&cfg, "st0");
	CHECK_EQ(cfg.engine_threads, 1);
	setenv(MANA_MODEL_ENGINE_THREADS_ENV, "two", 1);
	mana_model_config_init(&cfg, "st0");
	CHECK_EQ(cfg.engine_threads, 1);
	if (saved != NULL)
		setenv(MANA_MODEL_ENGINE_THREADS_ENV, saved, 1);
	else
		unsetenv(MANA_MODEL_ENGINE_THREADS_ENV);
	free(saved);
}

/* engine_cpu lists (':' between CPUs) and engine_threads, and how they agree. */
static void
test_engine_threads(void)
{
	char val[128], one[16];
	int c = cpu_allowed(true), off = cpu_allowed(false);

	start(MANA_MODEL_SETTINGS_DEVICE);
	snprintf(val, sizeof(val), "%d:-1:%d", c, c);
	set_ok("engine_cpu", val);
	CHECK_EQ(s.engine_ncpu, 3);
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.engine_threads, 3);
	CHECK(s.cfg.engine_cpu[0] == c && s.cfg.engine_cpu[1] == -1 && s.cfg.engine_cpu[2] == c);
	CHECK_EQ(s.cfg.engine_cpu[3], -1);
	/* a shorter list later replaces it */
	set_again("engine_cpu", "-1:-1");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.engine_threads, 2);
	CHECK_EQ(s.cfg.engine_cpu[2], -1);
	set_ok("engine_threads", "2");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	set_again("engine_threads", "3");
	CHECK_EQ(mana_model_settings_finish(&s), -EINVAL);
	CHECK_MSG(strstr(s.msg, "engine_threads=3 but engine_cpu names 2 CPUs (one CPU per "
			 "engine thread") != NULL, "%s", s.msg);
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("engine_threads", "16");
	set_ok("engine_cpu", "-1");
	CHECK_EQ(mana_model_settings_finish(&s), -EINVAL);
	CHECK_MSG(strstr(s.msg, "engine_threads=16 but engine_cpu names 1 CPU (") != NULL, "%s",
		  s.msg);
	/* engine_threads alone: that many unpinned threads */
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("engine_threads", "0x4");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.engine_threads, 4);
	CHECK(s.cfg.engine_cpu[0] == -1 && s.cfg.engine_cpu[3] == -1);
	bad_again("engine_threads", "0", -EINVAL, "(allowed: an integer 1..16 (engine threads");
	bad_again("engine_threads", "17", -EINVAL, "for key 'engine_threads'");
	bad_again("engine_threads", "-1", -EINVAL, "no sign");
	bad_again("engine_threads", "", -EINVAL, "for key 'engine_threads'");
	CHECK_EQ(s.cfg.engine_threads, 4);
	/* each entry as a single value; the bad one named */
	snprintf(val, sizeof(val), "%d:1024", c);
	set_bad("engine_cpu", val, -EINVAL, "for key 'engine_cpu': entry 2 '1024' (allowed:");
	snprintf(val, sizeof(val), "%d:", c);
	set_bad("engine_cpu", val, -EINVAL, "entry 2 '': integers are decimal");
	set_bad("engine_cpu", ":0", -EINVAL, "entry 1 '': integers are decimal");
	set_bad("engine_cpu", "-1::-1", -EINVAL, "entry 2 ''");
	set_bad("engine_cpu", "-1:01", -EINVAL, "entry 2 '01': integers are decimal");
	set_bad("engine_cpu", "-1,-1", -EINVAL, "for key 'engine_cpu': integers are decimal");
	if (off >= 0) {
		snprintf(one, sizeof(one), "%d", off);
		snprintf(val, sizeof(val), "-1:%s", one);
		set_bad("engine_cpu", val, -EINVAL, "entry 2");
		set_bad("engine_cpu", val, -EINVAL, "is offline or outside this process's CPU "
			"affinity");
	}
	strcpy(val, "-1");
	for (unsigned int i = 1; i < 17; i++)
		strcat(val, ":-1");
	set_bad("engine_cpu", val, -EINVAL, "more than 16 CPUs (one engine thread each");
	CHECK(!s.engine_cpu_given);
	val[strlen(val) - 3] = '\0';	/* 16 */
	set_ok("engine_cpu", val);
	CHECK_EQ(s.engine_ncpu, 16);
}

static void
test_good_values(void)
{
	char cpu[16];
	static const uint8_t mac1[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
	static const uint8_t mac5[6] = { 0xAB, 0xcd, 0xef, 0x01, 0x23, 0x45 };

	start(MANA_MODEL_SETTINGS_DEVICE | MANA_MODEL_SETTINGS_IDENTITY);
	set_ok("ports", "8");
	CHECK_EQ(s.cfg.nports, 8);
	set_ok("mac", "02:00:00:00:00:01");
	set_ok("mac", "02:00:00:00:00:0a");
	CHECK_MEM(s.cfg.mac[1], mac1, 6);
	set_ok("mac5", "ab-cd-ef-01-23-45");
	CHECK_MEM(s.cfg.mac[5], mac5, 6);
	CHECK(s.cfg.mac_set[0] && s.cfg.mac_set[1] && !s.cfg.mac_set[2] && s.cfg.mac_set[5]);
	set_ok("wire", "pair:1");
	set_ok("wire", "pair:0");
	set_ok("wire3", "none");
	set_ok("wire7", "gen:flows=4:len=128");
	CHECK_EQ(s.cfg.wire[0].type, MANA_MODEL_WIRE_PAIR);
	CHECK_EQ(s.cfg.wire[0].pair.port, 1);
	CHECK_EQ(s.cfg.wire[1].type, MANA_MODEL_WIRE_PAIR);
	CHECK_EQ(s.cfg.wire[1].pair.port, 0);
	CHECK_EQ(s.cfg.wire[3].type, MANA_MODEL_WIRE_NONE);
	CHECK_EQ(s.cfg.wire[7].type, MANA_MODEL_WIRE_GEN);
	CHECK_EQ(s.cfg.wire[7].gen.flows, 4);
	CHECK_EQ(s.cfg.wire[7].gen.frame_len, 128);
	CHECK_EQ(s.cfg.wire[2].type, MANA_MODEL_WIRE_LOOP);

	set_ok("doorbell", "shared");
	CHECK(s.cfg.shared_doorbell && !s.cfg.doorbell_untrapped);
	set_again("doorbell", "memory");
	CHECK(s.cfg.shared_doorbell && s.cfg.doorbell_untrapped);
	set_again("doorbell", "queue");
	CHECK(!s.cfg.shared_doorbell && !s.cfg.doorbell_untrapped);
	set_ok("coalesce", "0");
	CHECK(!s.cfg.rx_coalesce);
	set_again("coalesce", "1");
	CHECK(s.cfg.rx_coalesce);
	set_ok("cqe_batch", "1");
	CHECK_EQ(s.cfg.cqe_batch, 1);
	set_again("cqe_batch", "64");
	CHECK_EQ(s.cfg.cqe_batch, 64);
	snprintf(cpu, sizeof(cpu), "%d", cpu_allowed(true));
	set_ok("engine_cpu", cpu);
	CHECK_EQ(s.cfg.engine_cpu[0], cpu_allowed(true));
	set_again("engine_cpu", "-1");
	CHECK_EQ(s.cfg.engine_cpu[0], -1);
	CHECK(s.engine_cpu_given);
	set_ok("numa", "1");
	CHECK_EQ(s.cfg.numa_node, 1);
	CHECK(s.numa_given);
	set_ok("max_qp", "65535");
	CHECK_EQ(s.cfg.max_qp, 65535);
	set_again("max_qp", "0x10");
	CHECK_EQ(s.cfg.max_qp, 16);
	set_ok("max_qp_wr", "2048");
	CHECK_EQ(s.cfg.max_qp_wr, 2048);
	set_again("max_qp_wr", "256");
	CHECK_EQ(s.cfg.max_qp_wr, 256);
	set_ok("rdma_core", "44");
	CHECK_EQ(s.cfg.rdma_core, 44);
	set_again("rdma_core", "56");
	CHECK_EQ(s.cfg.rdma_core, 56);
	set_ok("part", "0");
	CHECK_EQ(s.cfg.vendor_part_id, 0);
	set_ok("name", "mana_up0");
	CHECK(strcmp(s.cfg.name, "mana_up0") == 0);
	set_ok("pci", "7870:00:1f.7");
	CHECK(strcmp(s.cfg.pci_bdf, "7870:00:1f.7") == 0);
	set_ok("sysfs", "/var/tmp/x/sys");
	CHECK(strcmp(s.cfg.sysfs_root, "/var/tmp/x/sys") == 0);
	CHECK(s.any_given);
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.nports, 8);
}

static void
test_bad_values(void)
{
	char long_name[64];

	start(MANA_MODEL_SETTINGS_DEVICE | MANA_MODEL_SETTINGS_IDENTITY);
	set_bad("ports", "0", -EINVAL, "bad value '0' for key 'ports' (allowed: an integer 1..8");
	set_bad("ports", "9", -EINVAL, "allowed: an integer 1..8");
	set_bad("ports", "2x", -EINVAL, "for key 'ports'");
	set_bad("ports", "", -EINVAL, "bad value '' for key 'ports'");
	set_bad("ports", NULL, -EINVAL, "bad value '' for key 'ports'");
	set_ok("ports", "2");
	set_bad("ports", "2", -EINVAL, "for key 'ports': given twice (allowed");
	set_bad("mac", "02:00:00:00:00", -EINVAL, "allowed: a MAC xx:xx:xx:xx:xx:xx");
	set_bad("mac", "02:00:00:00:00:0g", -EINVAL, "for key 'mac'");
	set_bad("mac", "02:00-00:00:00:01", -EINVAL, "for key 'mac'");
	set_bad("mac", "0x:00:00:00:00:01", -EINVAL, "for key 'mac'");
	set_bad("mac3", "zz", -EINVAL, "bad value 'zz' for key 'mac3'");
	/* found by test/fuzz/fuzz_model_env: a value shorter than 3 bytes was read past its
	 * end (ASan), a blank strtoul skips before a digit was taken for a MAC */
	set_bad("mac", "a", -EINVAL, "bad value 'a' for key 'mac'");
	set_bad("mac", "", -EINVAL, "for key 'mac'");
	set_bad("mac", "\t2:00:00:00:00:01", -EINVAL, "for key 'mac'");
	set_bad("mac", "02:00:00:00:00:\t1", -EINVAL, "for key 'mac'");
	set_bad("wire", "gen:flows=0x", -EINVAL, "bad value 'gen:flows=0x' for key 'wire': ");
	set_bad("wire", "bogus", -EINVAL, "(allowed: none|loop|pair:");
	set_bad("doorbell", "page", -EINVAL, "allowed: queue, shared or memory");
	set_bad("coalesce", "2", -EINVAL, "bad value '2' for key 'coalesce' (allowed: 0 or 1)");
	set_bad("coalesce", "yes", -EINVAL, "allowed: 0 or 1");
	set_bad("engine_cpu", "1024", -EINVAL, "allowed: an integer -1..1023");
	set_bad("engine_cpu", "-2", -EINVAL, "allowed: an integer -1..1023");
	set_bad("engine_cpu", " 1", -EINVAL, "for key 'engine_cpu'");
	set_bad("numa", "1024", -EINVAL, "allowed: an integer -1..1023");
	set_bad("cqe_batch", "0", -EINVAL, "bad value '0' for key 'cqe_batch' "
		"(allowed: an integer 1..64)");
	set_bad("cqe_batch", "65", -EINVAL, "allowed: an integer 1..64");
	set_bad("cqe_batch", "-1", -EINVAL, "for key 'cqe_batch'");
	set_bad("max_qp", "0", -EINVAL, "allowed: an integer 1..65535");
	set_bad("max_qp", "-1", -EINVAL, "allowed: an integer 1..65535");
	set_bad("max_qp_wr", "2049", -EINVAL, "allowed: an integer 1..2048");
	set_bad("max_qp_wr", "0", -EINVAL, "allowed: an integer 1..2048");
	set_bad("rdma_core", "43", -EINVAL, "allowed: an integer 44..999");
	set_bad("part", "1", -EINVAL, "allowed: 0 or 2");
	set_bad("name", "a/b", -EINVAL, "allowed: a device name");
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	set_bad("name", long_name, -EINVAL, "allowed: a device name of 1..31");
	set_bad("pci", "0000:00:05", -EINVAL, "allowed: a PCI address dddd:bb:dd.f");
	set_bad("pci", "0000:00:20.0", -EINVAL, "for key 'pci'");
	set_bad("pci", "+000:00:05.0", -EINVAL, "for key 'pci'");
	set_bad("pci", "0000:00:05.8", -EINVAL, "for key 'pci'");
	set_bad("sysfs", "", -EINVAL, "for key 'sysfs'");
	/* a refused value leaves the config as it was */
	CHECK_EQ(s.cfg.nports, 2);
	CHECK(s.cfg.rx_coalesce);
	CHECK_EQ(s.cfg.engine_cpu[0], -1);
	CHECK(!s.cfg.mac_set[0] && !s.cfg.mac_set[3]);
	CHECK_EQ(s.cfg.wire[0].type, MANA_MODEL_WIRE_LOOP);
}

static void
test_unknown_keys(void)
{
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_bad("colour", "blue", -ENOENT, "unknown key 'colour'");
	set_bad("wire8", "loop", -ENOENT, "unknown key 'wire8'");
	set_bad("mac12", "02:00:00:00:00:01", -ENOENT, "unknown key 'mac12'");
	set_bad("wire-1", "loop", -ENOENT, "unknown key 'wire-1'");
	/* identity keys belong to the MANA_MODEL environment only */
	set_bad("name", "x", -ENOENT, "unknown key 'name'");
	set_bad("pci", "0000:00:05.0", -ENOENT, "unknown key 'pci'");
	set_bad("sysfs", "/tmp", -ENOENT, "unknown key 'sysfs'");
	CHECK(!s.any_given);
}

static void
test_old_spellings(void)
{
	mana_model_settings_init(&s, "st0", MANA_MODEL_SETTINGS_DEVICE, "devarg");
	CHECK_EQ(mana_model_settings_set(&s, "rx_coalesce", "0"), 0);
	CHECK(strcmp(s.msg, "devarg rx_coalesce is deprecated, use coalesce") == 0);
	CHECK(!s.cfg.rx_coalesce);
	CHECK_EQ(mana_model_settings_set(&s, "doorbell", "object"), 0);
	CHECK(strcmp(s.msg, "devarg doorbell=object is deprecated, use doorbell=queue") == 0);
	CHECK(!s.cfg.shared_doorbell);

	mana_model_settings_init(&s, "st1", MANA_MODEL_SETTINGS_DEVICE, "MANA_MODEL");
	CHECK_EQ(mana_model_settings_set(&s, "cpu", "-1"), 0);
	CHECK(strcmp(s.msg, "MANA_MODEL cpu is deprecated, use engine_cpu") == 0);
	CHECK_EQ(s.cfg.engine_cpu[0], -1);
	CHECK(s.engine_cpu_given);
	/* an old spelling with a bad value is an error naming the key as written */
	set_bad("cpu", "x", -EINVAL, "bad value 'x' for key 'cpu': ");
	set_bad("cpu", "x", -EINVAL, "(allowed: an integer -1..1023");
	set_bad("rx_coalesce", "2", -EINVAL, "for key 'rx_coalesce' (allowed: 0 or 1)");
	/* the next accepted key clears the note */
	set_ok("cqe_batch", "4");
}

/*
 * One rule for repeats (doc/guides/nics/mana.rst "Device arguments"): every key is
 * given once, an old spelling counting as its key; mac= and wire= are lists, each
 * port's mac and wire set once.
 */
static void
test_repeats(void)
{
	static const char *const once[][3] = {
		{ "doorbell", "queue", "shared" }, { "coalesce", "0", "1" },
		{ "cqe_batch", "4", "8" }, { "engine_cpu", "-1", "-1" },
		{ "engine_threads", "2", "3" }, { "numa", "0", "-1" },
		{ "max_qp", "4", "8" }, { "part", "0", "2" }, { "max_qp_wr", "256", "512" },
		{ "rdma_core", "44", "56" }, { "ports", "2", "2" }, { "name", "a", "b" },
		{ "pci", "0000:00:05.0", "0000:00:06.0" }, { "sysfs", "/tmp/a", "/tmp/b" },
	};
	char want[96];
	unsigned int i;

	for (i = 0; i < sizeof(once) / sizeof(once[0]); i++) {
		start(MANA_MODEL_SETTINGS_DEVICE | MANA_MODEL_SETTINGS_IDENTITY);
		set_ok(once[i][0], once[i][1]);
		snprintf(want, sizeof(want), "bad value '%s' for key '%s': given twice (allowed",
			 once[i][2], once[i][0]);
		set_bad(once[i][0], once[i][2], -EINVAL, want);
	}
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("coalesce", "0");
	set_bad("rx_coalesce", "1", -EINVAL, "for key 'rx_coalesce': given twice");
	CHECK(!s.cfg.rx_coalesce);

	/* lists: the i-th is port i's; a port named twice is refused */
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("wire", "loop");
	set_ok("wire", "none");
	set_ok("mac1", "02:00:00:00:00:01");
	set_ok("mac", "02:00:00:00:00:00");
	set_bad("mac", "02:00:00:00:00:02", -EINVAL,
		"for key 'mac': port 1's mac is given twice (allowed");
	set_bad("wire1", "loop", -EINVAL, "for key 'wire1': port 1's wire is given twice");
	set_bad("mac0", "02:00:00:00:00:03", -EINVAL, "port 0's mac is given twice");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.nports, 2);
	CHECK_EQ(s.cfg.wire[1].type, MANA_MODEL_WIRE_NONE);
	CHECK_EQ(s.cfg.mac[0][5], 0);
	CHECK_EQ(s.cfg.mac[1][5], 1);
}

static void
test_ports_derived(void)
{
	/* no ports=: one more than the highest port named */
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("wire", "pair:1");
	set_ok("wire", "pair:0");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.nports, 2);

	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("mac3", "02:00:00:00:00:03");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.nports, 4);

	/* ports= given: every mac and wire must fit */
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("ports", "2");
	set_ok("wire", "loop");
	set_ok("wire", "loop");
	set_ok("wire", "loop");
	CHECK_EQ(mana_model_settings_finish(&s), -EINVAL);
	CHECK_MSG(strstr(s.msg, "sets port 2 but ports=2 (ports 0..1") != NULL, "%s", s.msg);

	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("ports", "1");
	set_ok("wire1", "loop");
	CHECK_EQ(mana_model_settings_finish(&s), -EINVAL);

	/* nine mac= (or wire=): the ninth has no port */
	start(MANA_MODEL_SETTINGS_DEVICE);
	for (unsigned int i = 0; i < MANA_MODEL_MAX_PORTS; i++)
		set_ok("wire", "none");
	set_bad("wire", "none", -EINVAL, "given more than 8 times");
	start(MANA_MODEL_SETTINGS_DEVICE);
	for (unsigned int i = 0; i < MANA_MODEL_MAX_PORTS; i++)
		set_ok("mac", "02:00:00:00:00:01");
	set_bad("mac", "02:00:00:00:00:01", -EINVAL, "given more than 8 times");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
	CHECK_EQ(s.cfg.nports, 8);
}

static void
test_key_list(void)
{
	static const char *const want[] = {
		"ports", "mac", "mac<N>", "wire", "wire<N>", "doorbell", "coalesce",
		"cqe_batch", "engine_cpu", "engine_threads", "numa", "max_qp", "part",
		"max_qp_wr", "rdma_core",
	};
	unsigned int i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *k = mana_model_settings_key(MANA_MODEL_SETTINGS_DEVICE, i);

		CHECK_MSG(k != NULL && strcmp(k, want[i]) == 0, "key %u: %s, want %s", i,
			  k != NULL ? k : "(null)", want[i]);
	}
	CHECK_NULL(mana_model_settings_key(MANA_MODEL_SETTINGS_DEVICE, i));
	CHECK(strcmp(mana_model_settings_key(MANA_MODEL_SETTINGS_IDENTITY, 0), "name") == 0);
	CHECK(strcmp(mana_model_settings_key(MANA_MODEL_SETTINGS_IDENTITY, 2), "sysfs") == 0);
	CHECK_NULL(mana_model_settings_key(MANA_MODEL_SETTINGS_IDENTITY, 3));
}

/* A parsed config creates a device that reports it. */
static void
test_creates_device(void)
{
	const struct mana_model_config *cfg;
	struct mana_model *m;

	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("ports", "2");
	set_ok("mac", "02:00:00:00:00:0a");
	set_ok("wire", "pair:1");
	set_ok("wire", "pair:0");
	set_ok("doorbell", "shared");
	set_ok("coalesce", "0");
	set_ok("max_qp", "8");
	set_ok("cqe_batch", "16");
	REQUIRE_EQ(mana_model_settings_finish(&s), 0);
	s.cfg.manual = true;
	m = mana_model_create(&s.cfg);
	REQUIRE_NOT_NULL(m);
	cfg = mana_model_config(m);
	CHECK_EQ(cfg->nports, 2);
	CHECK(cfg->shared_doorbell);
	CHECK(!cfg->rx_coalesce);
	CHECK_EQ(cfg->max_qp, 8);
	CHECK_EQ(cfg->cqe_batch, 16);
	CHECK_EQ(cfg->wire[1].type, MANA_MODEL_WIRE_PAIR);
	CHECK_EQ(cfg->mac[0][5], 0x0a);
	CHECK_EQ(mana_model_destroy(m), 0);
}

/*
 * One rule for every integer (model_num.h), in settings and wire specs alike:
 * decimal without a leading 0 or 0x hex; no blanks, '+', octal, or '-' where
 * the range has no negative values.
 */
/* s.msg ends with want: the whole line, not cut at the buffer's end */
static bool
msg_ends(const char *want)
{
	size_t n = strlen(s.msg), w = strlen(want);

	return CHECK_MSG(n >= w && strcmp(s.msg + n - w, want) == 0, "'%s' does not end '%s'",
			 s.msg, want);
}

/* The longest lines are whole (a 256-byte buffer cut them); a long value is clipped with "...". */
static void
test_whole_lines(void)
{
	static const char tail[] = "the i-th wire= is port i's, wire<N>= port N's (N 0..7))";
	char val[2000];
	char *p;

	start(MANA_MODEL_SETTINGS_DEVICE);
	set_bad("wire", "gen:len=65:proto=tcp", -EINVAL, "4 more with vlan) or above 9216");
	msg_ends(tail);
	set_bad("wire", "pcap:tx=/tmp/a/b/c/d/out.pcap:loop=1", -EINVAL, "loop only with rx");
	msg_ends(tail);
	set_bad("wire", "gen:speed=1", -EINVAL, "gen: unknown key (flows, len, proto");
	msg_ends(tail);
	memcpy(val, "pcap:rx=/", 9);
	memset(val + 9, 'c', 254);
	memcpy(val + 263, ":tx=/", 5);
	memset(val + 268, 'd', 254);
	strcpy(val + 522, ":loop=1:x=1");
	set_bad("wire", val, -EINVAL, "pcap: unknown key (rx, tx, loop)");
	msg_ends(tail);
	memset(val, 'e', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	set_bad("ports", val, -EINVAL, "' for key 'ports'");
	p = strstr(s.msg, "...' for key 'ports'");
	CHECK_MSG(p != NULL && p - s.msg == (ptrdiff_t)strlen("bad value '") +
		  MANA_MODEL_SETTINGS_VAL_SHOWN, "'%s'", s.msg);
	msg_ends("(allowed: an integer 1..8, given once)");
}

static void
test_integer_rule(void)
{
	static const char *const bad_ports[] = {
		" 2", "2 ", "\t2", "2\n", "+2", "-2", "02", "010", "0x", "0x 2", "2.0", "1e0",
		"-0", "--2", "0b10", "",
	};
	static const char *const bad_cpu[] = { " 1", "1 ", "\t1", "+1", "-01", "-0", "-0x1", "01" };
	static const char *const bad_wire[] = {
		"gen:flows=+2", "gen:flows= 2", "gen:flows=2 ", "gen:flows=02", "gen:count=-1",
		"gen:seed=\t1", "pair:+1", "pair: 1", "pair:01", "loop ", " loop",
	};
	unsigned int i;

	start(MANA_MODEL_SETTINGS_DEVICE);
	for (i = 0; i < sizeof(bad_ports) / sizeof(bad_ports[0]); i++)
		set_bad("ports", bad_ports[i], -EINVAL, "for key 'ports'");
	set_bad("ports", "010", -EINVAL, "leading 0");
	set_bad("max_qp", "-1", -EINVAL, "no sign");
	for (i = 0; i < sizeof(bad_cpu) / sizeof(bad_cpu[0]); i++)
		set_bad("engine_cpu", bad_cpu[i], -EINVAL, "for key 'engine_cpu'");
	for (i = 0; i < sizeof(bad_wire) / sizeof(bad_wire[0]); i++)
		set_bad("wire", bad_wire[i], -EINVAL, "for key 'wire'");
	/* the same spellings of a number are good everywhere */
	set_ok("ports", "0x2");
	CHECK_EQ(s.cfg.nports, 2);
	set_ok("max_qp", "0X1f");
	CHECK_EQ(s.cfg.max_qp, 31);
	set_ok("numa", "0");
	CHECK_EQ(s.cfg.numa_node, 0);
	set_again("numa", "-1");
	CHECK_EQ(s.cfg.numa_node, -1);
	set_ok("wire", "gen:flows=0x10:count=0:seed=10");
	CHECK_EQ(s.cfg.wire[0].gen.flows, 16);
	CHECK_EQ(s.cfg.wire[0].gen.seed, 10);
	set_ok("wire1", "pair:0x0");
	CHECK_EQ(s.cfg.wire[1].pair.port, 0);
}

/* engine_cpu: a CPU the process may run on (online, in its affinity), or -1. */
static void
test_engine_cpu_allowed(void)
{
	char val[16];
	int c = cpu_allowed(false);

	start(MANA_MODEL_SETTINGS_DEVICE);
	if (c < 0)
		UNIT_SKIP("every CPU 0..1023 is in this process's affinity");
	snprintf(val, sizeof(val), "%d", c);
	set_bad("engine_cpu", val, -EINVAL, "is offline or outside this process's CPU affinity");
	set_bad("engine_cpu", val, -EINVAL, "(allowed: an integer -1..1023 (-1: not pinned)");
	CHECK(!s.engine_cpu_given);
	set_ok("engine_cpu", "-1");
	snprintf(val, sizeof(val), "%d", cpu_allowed(true));
	set_again("engine_cpu", val);
}

/* Pair wires within the device must name each other and existing ports (issue 13 item 5). */
static void
test_pairs_checked(void)
{
	static const struct {
		const char *kv[3][2];
		const char *want;
	} bad[] = {
		{ { { "wire", "pair:1" } }, "port 0: wire pair:1 names port 1, but the device has "
		  "1 port (ports=2 for more)" },
		{ { { "ports", "2" }, { "wire", "pair:1" }, { "wire", "loop" } },
		  "port 0: wire pair:1, but port 1's wire is loop, not pair:0" },
		{ { { "ports", "3" }, { "wire", "pair:1" }, { "wire", "pair:2" } },
		  "port 0: wire pair:1, but port 1's wire is pair to another port, not pair:0" },
		{ { { "wire2", "pair:0" } },
		  "port 2: wire pair:0, but port 0's wire is loop, not pair:2" },
		{ { { "ports", "2" }, { "wire1", "pair:5" } }, "names port 5, but the device has 2 "
		  "ports" },
	};
	unsigned int i, k;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		start(MANA_MODEL_SETTINGS_DEVICE);
		for (k = 0; k < 3 && bad[i].kv[k][0] != NULL; k++)
			set_ok(bad[i].kv[k][0], bad[i].kv[k][1]);
		CHECK_MSG(mana_model_settings_finish(&s) == -EINVAL &&
			  strstr(s.msg, bad[i].want) != NULL, "case %u: '%s', want '%s'", i, s.msg,
			  bad[i].want);
	}
	/* good: a pair back, a port cabled to itself, one to another device (checked at create) */
	start(MANA_MODEL_SETTINGS_DEVICE);
	set_ok("ports", "4");
	set_ok("wire", "pair:2");
	set_ok("wire", "pair:1");
	set_ok("wire", "pair:0");
	set_ok("wire3", "pair:other/0");
	CHECK_EQ(mana_model_settings_finish(&s), 0);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_integer_rule),
	UNIT_TEST(test_whole_lines),
	UNIT_TEST(test_pairs_checked),
	UNIT_TEST(test_engine_cpu_allowed),
	UNIT_TEST(test_engine_threads),
	UNIT_TEST(test_engine_threads_env),
	UNIT_TEST(test_defaults),
	UNIT_TEST(test_good_values),
	UNIT_TEST(test_bad_values),
	UNIT_TEST(test_unknown_keys),
	UNIT_TEST(test_old_spellings),
	UNIT_TEST(test_repeats),
	UNIT_TEST(test_ports_derived),
	UNIT_TEST(test_key_list),
	UNIT_TEST(test_creates_device),
};

UNIT_MAIN(tests)
