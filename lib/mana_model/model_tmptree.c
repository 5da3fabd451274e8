/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * The temporary sysfs trees ($TMPDIR/mana_model.XXXXXX) of devices created
 * without a sysfs root, and that nothing of them outlives the process.
 *
 * A tree goes away with its device (mm_tmptree_remove). A process that ends
 * without destroying its devices leaves none either:
 *  - exit() (an application that never closes its ports, or returns from
 *    main without rte_eal_cleanup()): an atexit handler removes every tree
 *    this process made and still has. It runs in the process that made the
 *    tree only, never in a forked child, and at dlclose of the library too
 *    (glibc ties atexit to the object that registered it);
 *  - a death no handler sees (SIGKILL, a signal's default action): each
 *    tree holds an "owner" file with its process's pid and start time
 *    (/proc/<pid>/stat field 22), and the next tree made in the same
 *    directory first removes every tree of this user whose owner is gone
 *    (no such pid, or a pid reused by a later process).
 * A library installs no signal handler of its own: an application that
 * handles SIGTERM and exits (dpdk-testpmd closes its ports) is the first
 * case; one that does not is the second.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_priv.h"

#define MM_TMPTREE_PREFIX	"mana_model."
#define MM_TMPTREE_OWNER	"owner"

struct mm_tmptree {
	LIST_ENTRY(mm_tmptree) link;
	pid_t pid;			/* the process that made it */
	char root[MANA_MODEL_PATH_LEN];
};

static LIST_HEAD(, mm_tmptree) mm_tmptrees = LIST_HEAD_INITIALIZER(mm_tmptrees);
static pthread_mutex_t mm_tmptree_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t mm_tmptree_once = PTHREAD_ONCE_INIT;

static int
mm_tmptree_rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void
mm_tmptree_rm(const char *root)
{
	nftw(root, mm_tmptree_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Start time of process pid in clock ticks since boot (0: unknown). */
static uint64_t
mm_proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: fields follow the last ')'. */
	p = strrchr(buf, ')');
	/* After it: state (field 3) to itrealvalue (field 21), then starttime (22). */
	if (p == NULL || sscanf(p + 1, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %*s %*s %*s %*s %*s %llu", &start) != 1)
		return 0;
	return start;
}

/* The owner file names a process that still runs (unreadable: assumed so). */
static bool
mm_tmptree_owner_alive(const char *root)
{
	char path[MANA_MODEL_PATH_LEN + 16];
	unsigned long long start = 0;
	int pid = 0;
	uint64_t now;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/" MM_TMPTREE_OWNER, root);
	f = fopen(path, "r");
	if (f == NULL)
		return true;	/* being made, or not ours to judge */
	n = fscanf(f, "%d %llu", &pid, &start);
	fclose(f);
	if (n != 2 || pid <= 0)
		return true;
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	now = mm_proc_start(pid);
	/* The pid runs, but as a later process when its start time differs. */
	return now == 0 || start == 0 || now == start;
}

/* Remove every tree of this user under dir whose owner has died. */
static void
mm_tmptree_reap(const char *dir)
{
	char path[MANA_MODEL_PATH_LEN];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, MM_TMPTREE_PREFIX, strlen(MM_TMPTREE_PREFIX)) != 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (mm_tmptree_owner_alive(path))
			continue;
		mm_log(MM_LOG_INFO, "removing %s, left behind by a process that is gone", path);
		mm_tmptree_rm(path);
	}
	closedir(d);
}

/* atexit: the trees this process made and still has. */
static void
mm_tmptree_atexit(void)
{
	struct mm_tmptree *t, *next;
	pid_t self = getpid();

	pthread_mutex_lock(&mm_tmptree_lock);
	for (t = LIST_FIRST(&mm_tmptrees); t != NULL; t = next) {
		next = LIST_NEXT(t, link);
		if (t->pid != self)
			continue;	/* a forked child's copy of its parent's list */
		mm_tmptree_rm(t->root);
		LIST_REMOVE(t, link);
		free(t);
	}
	pthread_mutex_unlock(&mm_tmptree_lock);
}

static void
mm_tmptree_init(void)
{
	if (atexit(mm_tmptree_atexit) != 0)
		mm_log(MM_LOG_WARNING, "no atexit handler: a device not destroyed leaves its "
		       "sysfs tree until the next one is made");
}

int
mm_tmptree_create(char *root, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	const char *dir = tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
	struct mm_tmptree *t;
	pid_t self = getpid();
	FILE *f;
	int rc;

	if (size > sizeof(t->root))
		size = sizeof(t->root);
	if (snprintf(root, size, "%s/" MM_TMPTREE_PREFIX "XXXXXX", dir) >= (int)size)
		return ENAMETOOLONG;
	pthread_once(&mm_tmptree_once, mm_tmptree_init);
	mm_tmptree_reap(dir);
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return ENOMEM;
	if (mkdtemp(root) == NULL) {
		rc = errno;
		free(t);
		return rc;
	}
	/* Written under another name and renamed: a reaper never sees half a file. */
	snprintf(t->root, sizeof(t->root), "%s/." MM_TMPTREE_OWNER, root);
	f = fopen(t->root, "w");
	rc = f == NULL ? errno : 0;
	if (f != NULL) {
		fprintf(f, "%d %" PRIu64 "\n", (int)self, mm_proc_start(self));
		if (fclose(f) != 0)
			rc = errno;
	}
	if (rc == 0) {
		char owner[MANA_MODEL_PATH_LEN + 16];

		snprintf(owner, sizeof(owner), "%s/" MM_TMPTREE_OWNER, root);
		if (rename(t->root, owner) != 0)
			rc = errno;
	}
	if (rc != 0) {
		mm_tmptree_rm(root);
		free(t);
		return rc;
	}
	snprintf(t->root, sizeof(t->root), "%s", root);
	t->pid = self;
	pthread_mutex_lock(&mm_tmptree_lock);
	LIST_INSERT_HEAD(&mm_tmptrees, t, link);
	pthread_mutex_unlock(&mm_tmptree_lock);
	return 0;
}

void
mm_tmptree_remove(const char *root)
{
	struct mm_tmptree *t;

	mm_tmptree_rm(root);
	pthread_mutex_lock(&mm_tmptree_lock);
	LIST_FOREACH(t, &mm_tmptrees, link) {
		if (strcmp(t->root, root) == 0) {
			LIST_REMOVE(t, link);
			free(t);
			break;
		}
	}
	pthread_mutex_unlock(&mm_tmptree_lock);
}
