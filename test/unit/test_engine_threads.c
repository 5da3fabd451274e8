/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * Engine threads (doc/user_guide.md "Engine threads"): a device runs as many
 * engine threads as its config says, named mm-<device> (one) or
 * mm-<device>/<i> (several), each pinned to its engine_cpu entry; they end
 * with the device; manual mode has none; bad counts and CPUs are refused.
 * The threads are counted in /proc/self/task, as ps or top would show them.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sched_getaffinity */
#endif
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

#include "unit.h"
#include "fixture.h"

#define MAX_SEEN	32

struct seen {
	char name[16];
	cpu_set_t cpus;
};

/* This process's threads whose name starts with prefix, with their affinity. */
static unsigned int
engine_threads_of(const char *prefix, struct seen *out)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	if (!CHECK(d != NULL))
		return 0;
	while ((e = readdir(d)) != NULL && n < MAX_SEEN) {
		char path[300], name[16] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;	/* the thread ended meanwhile */
		if (fgets(name, sizeof(name), f) == NULL)
			name[0] = '\0';
		fclose(f);
		name[strcspn(name, "\n")] = '\0';
		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		CPU_ZERO(&out[n].cpus);
		CHECK_EQ(sched_getaffinity((pid_t)atoi(e->d_name), sizeof(out[n].cpus),
					   &out[n].cpus), 0);
		n++;
	}
	closedir(d);
	return n;
}

/* The i-th CPU this process may run on, wrapping; -1 if none is known. */
static int
allowed_cpu(unsigned int i)
{
	cpu_set_t set;
	int c, k = 0, n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 || (n = CPU_COUNT(&set)) == 0)
		return -1;
	i %= (unsigned int)n;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && (unsigned int)k++ == i)
			return c;
	return -1;
}

static struct mana_model *
create(struct mana_model_config *cfg, unsigned int threads)
{
	fx_config(cfg, 2);
	cfg->manual = false;
	cfg->engine_threads = (uint8_t)threads;
	return mana_model_create(cfg);
}

static void
check_gone(const char *name)
{
	struct seen seen[MAX_SEEN];
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "mm-%.12s", name);
	CHECK_EQ(engine_threads_of(prefix, seen), 0);
}

/* One thread: the name of always, mm-<device>. */
static void
test_one_thread(void)
{
	struct mana_model_engine_stats es;
	struct mana_model_config cfg;
	struct seen seen[MAX_SEEN];
	struct mana_model *m = create(&cfg, 1);
	char want[16];

	REQUIRE_NOT_NULL(m);
	snprintf(want, sizeof(want), "mm-%.12s", cfg.name);
	CHECK_EQ(engine_threads_of(want, seen), 1);
	CHECK(strcmp(seen[0].name, want) == 0);
	CHECK_EQ(mana_model_engine_stats(m, &es), 0);
	CHECK_EQ(es.threads, 1);
	CHECK_EQ(mana_model_destroy(m), 0);
	check_gone(cfg.name);
}

/* engine_threads=N without CPUs: N threads, none pinned (the process's affinity). */
static void
test_unpinned_threads(void)
{
	static const unsigned int counts[] = { 2, 4, 16 };
	struct mana_model_engine_stats es;
	struct mana_model_config cfg;
	struct seen seen[MAX_SEEN];
	cpu_set_t mine;

	REQUIRE_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (unsigned int k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct mana_model *m = create(&cfg, counts[k]);
		char prefix[16], want[16];
		unsigned int n, found = 0;

		REQUIRE_NOT_NULL(m);
		snprintf(prefix, sizeof(prefix), "mm-%.9s/", cfg.name);
		n = engine_threads_of(prefix, seen);
		CHECK_MSG(n == counts[k], "%u threads named %s*, want %u", n, prefix, counts[k]);
		for (unsigned int i = 0; i < counts[k]; i++) {
			snprintf(want, sizeof(want), "mm-%.*s/%u", i < 10 ? 10 : 9, cfg.name, i);
			for (unsigned int j = 0; j < n; j++)
				if (strcmp(seen[j].name, want) == 0) {
					found++;
					CHECK(CPU_EQUAL(&seen[j].cpus, &mine));
				}
		}
		CHECK_EQ(found, counts[k]);
		CHECK_EQ(mana_model_engine_stats(m, &es), 0);
		CHECK_EQ(es.threads, counts[k]);
		CHECK_EQ(mana_model_destroy(m), 0);
		check_gone(cfg.name);
	}
}

/*
 * Created from a thread confined to one CPU, as an EAL lcore is (issue 32,
 * D15: with -l 0-1 every engine thread inherited lcore 0's CPU): unpinned
 * threads still get every CPU the process could run on when it started.
 */
static void
test_unpinned_from_pinned_creator(void)
{
	struct mana_model_config cfg;
	struct seen seen[MAX_SEEN];
	struct mana_model *m;
	cpu_set_t start, one;
	char prefix[16];
	unsigned int n;

	REQUIRE_EQ(sched_getaffinity(0, sizeof(start), &start), 0);
	if (CPU_COUNT(&start) < 2) {
		printf("  (one CPU in this process's affinity: nothing to tell apart)\n");
		return;
	}
	CPU_ZERO(&one);
	CPU_SET(allowed_cpu(0), &one);
	REQUIRE_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	m = create(&cfg, 3);
	CHECK_EQ(pthread_setaffinity_np(pthread_self(), sizeof(start), &start), 0);
	REQUIRE_NOT_NULL(m);
	snprintf(prefix, sizeof(prefix), "mm-%.9s/", cfg.name);
	n = engine_threads_of(prefix, seen);
	CHECK_EQ(n, 3);
	for (unsigned int j = 0; j < n; j++)
		CHECK_MSG(CPU_EQUAL(&seen[j].cpus, &start), "%s: %d CPUs allowed, want the "
			  "process's %d", seen[j].name, CPU_COUNT(&seen[j].cpus),
			  CPU_COUNT(&start));
	CHECK_EQ(mana_model_destroy(m), 0);
	check_gone(cfg.name);
}

/* An engine_cpu list: thread i runs on engine_cpu[i] only. */
static void
test_pinned_threads(void)
{
	struct mana_model_config cfg;
	struct seen seen[MAX_SEEN];
	struct mana_model *m;
	char prefix[16], want[16];
	unsigned int n;
	int cpu[3];

	for (unsigned int i = 0; i < 3; i++)
		cpu[i] = allowed_cpu(i);
	if (cpu[0] < 0)
		UNIT_SKIP("no CPU affinity known");
	fx_config(&cfg, 2);
	cfg.manual = false;
	cfg.engine_threads = 3;
	for (unsigned int i = 0; i < 3; i++)
		cfg.engine_cpu[i] = cpu[i];
	m = mana_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	snprintf(prefix, sizeof(prefix), "mm-%.9s/", cfg.name);
	n = engine_threads_of(prefix, seen);
	CHECK_EQ(n, 3);
	for (unsigned int i = 0; i < 3; i++) {
		unsigned int hit = 0;

		snprintf(want, sizeof(want), "mm-%.10s/%u", cfg.name, i);
		for (unsigned int j = 0; j < n; j++) {
			if (strcmp(seen[j].name, want) != 0)
				continue;
			hit++;
			CHECK_MSG(CPU_COUNT(&seen[j].cpus) == 1 && CPU_ISSET(cpu[i], &seen[j].cpus),
				  "%s: %d CPUs, want only CPU %d", want, CPU_COUNT(&seen[j].cpus),
				  cpu[i]);
		}
		CHECK_MSG(hit == 1, "thread %s seen %u times", want, hit);
	}
	CHECK_EQ(mana_model_destroy(m), 0);
	check_gone(cfg.name);
}

/* Manual mode: no thread, whatever engine_threads says. */
static void
test_manual_none(void)
{
	struct mana_model_engine_stats es;
	struct mana_model_config cfg;
	struct seen seen[MAX_SEEN];
	struct mana_model *m;
	char prefix[16];

	fx_config(&cfg, 1);
	cfg.engine_threads = 4;
	m = mana_model_create(&cfg);
	REQUIRE_NOT_NULL(m);
	snprintf(prefix, sizeof(prefix), "mm-%.12s", cfg.name);
	CHECK_EQ(engine_threads_of(prefix, seen), 0);
	CHECK_EQ(mana_model_engine_stats(m, &es), 0);
	CHECK_EQ(es.threads, 0);
	CHECK_EQ(mana_model_step(m), 0);
	CHECK_EQ(mana_model_engine_stats(m, &es), 0);
	CHECK_EQ(es.passes, 1);
	CHECK_EQ(mana_model_destroy(m), 0);
}

/* A config with a bad count or CPU is refused at create. */
static void
test_bad_config(void)
{
	struct mana_model_config cfg;

	errno = 0;
	CHECK_NULL(create(&cfg, 0));
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_NULL(create(&cfg, MANA_MODEL_MAX_ENGINES + 1));
	CHECK_EQ(errno, EINVAL);
	fx_config(&cfg, 1);
	cfg.manual = false;
	cfg.engine_threads = 2;
	cfg.engine_cpu[1] = CPU_SETSIZE;
	errno = 0;
	CHECK_NULL(mana_model_create(&cfg));
	CHECK_EQ(errno, EINVAL);
	check_gone(cfg.name);
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_one_thread),
	UNIT_TEST(test_unpinned_threads),
	UNIT_TEST(test_unpinned_from_pinned_creator),
	UNIT_TEST(test_pinned_threads),
	UNIT_TEST(test_manual_none),
	UNIT_TEST(test_bad_config),
};

UNIT_MAIN(tests)
