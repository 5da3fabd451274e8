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
 *    tree holds an "owner" file (its process's pid, for people) that the
 *    process keeps open with an flock(2) lock for the tree's life; the
 *    kernel drops the lock when the process dies, however it dies. The next
 *    tree made in the same directory first removes every tree of this user
 *    whose owner file nobody holds locked. A lock, not the pid: a pid may
 *    be reused, and under qemu-user a process's own /proc/self/stat is
 *    emulated (start time 0) while another's is the host's, so start times
 *    do not compare (a live tree was removed so under qemu-aarch64).
 * A library installs no signal handler of its own: an application that
 * handles SIGTERM and exits (dpdk-testpmd closes its ports) is the first
 * case; one that does not is the second.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_priv.h"

#define MM_TMPTREE_PREFIX	"mana_model."
#define MM_TMPTREE_OWNER	"owner"

struct mm_tmptree {
	LIST_ENTRY(mm_tmptree) link;
	pid_t pid;			/* the process that made it */
	int owner_fd;			/* its owner file, locked while the tree lives */
	char root[MANA_MODEL_PATH_LEN];
};

static LIST_HEAD(, mm_tmptree) mm_tmptrees = LIST_HEAD_INITIALIZER(mm_tmptrees);
static pthread_mutex_t mm_tmptree_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t mm_tmptree_once = PTHREAD_ONCE_INIT;

/* Some process holds the tree's owner file locked (no owner file: assumed so). */
static bool
mm_tmptree_owner_alive(const char *root)
{
	char path[MANA_MODEL_PATH_LEN + 16];
	bool alive;
	int fd;

	snprintf(path, sizeof(path), "%s/" MM_TMPTREE_OWNER, root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;	/* being made, or not ours to judge */
	alive = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return alive;
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
		mm_rm_tree(path);
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
		mm_rm_tree(t->root);
		close(t->owner_fd);
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
	char line[32];
	int rc, fd, n;

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
	/*
	 * Locked and written under another name, then renamed: a reaper never
	 * sees an owner file nobody holds. Kept open (not across exec) until the
	 * tree goes; a forked child shares the lock.
	 */
	snprintf(t->root, sizeof(t->root), "%s/." MM_TMPTREE_OWNER, root);
	fd = open(t->root, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	rc = fd < 0 ? errno : 0;
	if (rc == 0 && flock(fd, LOCK_EX | LOCK_NB) != 0)
		rc = errno;
	if (rc == 0) {
		n = snprintf(line, sizeof(line), "%d\n", (int)self);
		if (write(fd, line, (size_t)n) != n)
			rc = errno != 0 ? errno : EIO;
	}
	if (rc == 0) {
		char owner[MANA_MODEL_PATH_LEN + 16];

		snprintf(owner, sizeof(owner), "%s/" MM_TMPTREE_OWNER, root);
		if (rename(t->root, owner) != 0)
			rc = errno;
	}
	if (rc != 0) {
		if (fd >= 0)
			close(fd);
		mm_rm_tree(root);
		free(t);
		return rc;
	}
	snprintf(t->root, sizeof(t->root), "%s", root);
	t->pid = self;
	t->owner_fd = fd;
	pthread_mutex_lock(&mm_tmptree_lock);
	LIST_INSERT_HEAD(&mm_tmptrees, t, link);
	pthread_mutex_unlock(&mm_tmptree_lock);
	return 0;
}

void
mm_tmptree_remove(const char *root)
{
	struct mm_tmptree *t;

	mm_rm_tree(root);
	pthread_mutex_lock(&mm_tmptree_lock);
	LIST_FOREACH(t, &mm_tmptrees, link) {
		if (strcmp(t->root, root) == 0) {
			close(t->owner_fd);
			LIST_REMOVE(t, link);
			free(t);
			break;
		}
	}
	pthread_mutex_unlock(&mm_tmptree_lock);
}
