/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 net_mana authors
 */

/*
 * A device created without a sysfs root writes its tree in
 * $TMPDIR/mana_model.XXXXXX (model_tmptree.c); nothing of it may outlive
 * its process:
 *  - destroyed: gone at once;
 *  - exit() without destroying it: gone (atexit), while a forked child's
 *    exit leaves its parent's tree alone;
 *  - killed (SIGKILL): left, and removed by the next device created in that
 *    directory; a tree whose owner still runs (holds its owner file
 *    locked) stays, as does one without an owner file; an owner file naming
 *    a running pid but locked by no one does not keep a tree (a pid may be
 *    reused).
 * Each case runs in a private TMPDIR.
 */

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "unit.h"
#include "mana_model.h"

static char tt_dir[256];

/* A private TMPDIR for this case. */
static bool
tt_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tt_dir, sizeof(tt_dir), "%s/tmptree.XXXXXX",
		 base != NULL && base[0] != '\0' ? base : "/tmp");
	if (mkdtemp(tt_dir) == NULL)
		return false;
	return setenv("TMPDIR", tt_dir, 1) == 0;
}

/* Directories named mana_model.* in the private TMPDIR; the last one's name in last. */
static int
tt_count(char *last, size_t size)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(tt_dir);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "mana_model.", 11) != 0)
			continue;
		n++;
		if (last != NULL)
			snprintf(last, size, "%s/%s", tt_dir, de->d_name);
	}
	closedir(d);
	return n;
}

static struct mana_model *
tt_model(const char *name)
{
	struct mana_model_config cfg;

	mana_model_config_init(&cfg, name);
	cfg.manual = true;	/* no engine thread: nothing runs but the tree */
	return mana_model_create(&cfg);
}

static void
tt_rmdir(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tt_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tt_dir);
}

/* A child that makes a device and then ends as how says: exit or SIGKILL. */
static pid_t
tt_child(const char *name, bool kill_self, int ready_fd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (tt_model(name) == NULL)
		_exit(3);
	if (tt_count(NULL, 0) < 1)
		_exit(4);
	if (ready_fd >= 0) {
		if (write(ready_fd, "r", 1) != 1)
			_exit(5);
		pause();	/* until killed */
	}
	if (kill_self)
		raise(SIGKILL);
	exit(0);	/* the device is never destroyed */
}

static int
tt_wait(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void
test_destroy_removes(void)
{
	struct mana_model *m;

	REQUIRE(tt_tmpdir());
	m = tt_model("tt_destroy");
	REQUIRE(m != NULL);
	CHECK_EQ(tt_count(NULL, 0), 1);
	CHECK_EQ(mana_model_destroy(m), 0);
	CHECK_EQ(tt_count(NULL, 0), 0);
	tt_rmdir();
}

static void
test_exit_removes(void)
{
	int st;

	REQUIRE(tt_tmpdir());
	st = tt_wait(tt_child("tt_exit", false, -1));
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
	CHECK_EQ(tt_count(NULL, 0), 0);
	tt_rmdir();
}

static void
test_fork_keeps_parent_tree(void)
{
	struct mana_model *m;
	pid_t pid;
	int st;

	REQUIRE(tt_tmpdir());
	m = tt_model("tt_parent");
	REQUIRE(m != NULL);
	pid = fork();
	if (pid == 0)
		exit(0);	/* runs the atexit handler it inherited */
	st = tt_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_MSG(tt_count(NULL, 0) == 1, "a forked child's exit removed its parent's tree");
	CHECK_EQ(mana_model_destroy(m), 0);
	CHECK_EQ(tt_count(NULL, 0), 0);
	tt_rmdir();
}

static void
test_killed_reaped(void)
{
	char left[512], now[512];
	struct mana_model *m;
	struct stat sb;
	int st;

	REQUIRE(tt_tmpdir());
	st = tt_wait(tt_child("tt_killed", true, -1));
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child status 0x%x", st);
	/* Nothing can run in a process killed so: its tree is left... */
	CHECK_EQ(tt_count(left, sizeof(left)), 1);
	/* ...until the next device is made there. */
	m = tt_model("tt_next");
	REQUIRE(m != NULL);
	CHECK_EQ(tt_count(now, sizeof(now)), 1);
	CHECK_MSG(stat(left, &sb) != 0, "%s of a killed process still there", left);
	CHECK_EQ(mana_model_destroy(m), 0);
	CHECK_EQ(tt_count(NULL, 0), 0);
	tt_rmdir();
}

static void
test_live_owner_kept(void)
{
	struct mana_model *a, *b;
	char c;
	int fds[2], st;
	pid_t pid;

	REQUIRE(tt_tmpdir());
	REQUIRE_EQ(pipe(fds), 0);
	pid = tt_child("tt_live", false, fds[1]);
	REQUIRE(pid > 0);
	CHECK_EQ(read(fds[0], &c, 1), 1);	/* its device exists */
	a = tt_model("tt_beside");
	REQUIRE(a != NULL);
	CHECK_MSG(tt_count(NULL, 0) == 2, "a running process's tree was removed");
	kill(pid, SIGKILL);
	st = tt_wait(pid);
	CHECK(WIFSIGNALED(st));
	b = tt_model("tt_after");
	REQUIRE(b != NULL);
	CHECK_MSG(tt_count(NULL, 0) == 2, "the killed process's tree was not removed");
	CHECK_EQ(mana_model_destroy(a), 0);
	CHECK_EQ(mana_model_destroy(b), 0);
	CHECK_EQ(tt_count(NULL, 0), 0);
	close(fds[0]);
	close(fds[1]);
	tt_rmdir();
}

/*
 * Trees another program made by hand: one without an owner, one whose owner
 * file names a running pid (this one) but is locked by no one, one whose
 * owner file this process holds locked.
 */
static void
test_owner_file(void)
{
	char noowner[300], reused[300], held[300], path[340];
	struct mana_model *m;
	struct stat sb;
	FILE *f;
	int fd;

	REQUIRE(tt_tmpdir());
	snprintf(noowner, sizeof(noowner), "%s/mana_model.noownr", tt_dir);
	snprintf(reused, sizeof(reused), "%s/mana_model.reused", tt_dir);
	REQUIRE_EQ(mkdir(noowner, 0700), 0);
	REQUIRE_EQ(mkdir(reused, 0700), 0);
	snprintf(held, sizeof(held), "%s/mana_model.heldxx", tt_dir);
	REQUIRE_EQ(mkdir(held, 0700), 0);
	snprintf(path, sizeof(path), "%s/owner", held);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	REQUIRE(fd >= 0);
	REQUIRE_EQ(flock(fd, LOCK_EX), 0);
	/* This process's pid, in a file nobody holds: the pid alone proves nothing. */
	snprintf(path, sizeof(path), "%s/owner", reused);
	f = fopen(path, "w");
	REQUIRE(f != NULL);
	fprintf(f, "%d 1\n", (int)getpid());
	fclose(f);
	m = tt_model("tt_owner");
	REQUIRE(m != NULL);
	CHECK_MSG(stat(noowner, &sb) == 0, "a tree without an owner file was removed");
	CHECK_MSG(stat(reused, &sb) != 0, "a tree whose owner file nobody holds was kept");
	CHECK_MSG(stat(held, &sb) == 0, "a tree whose owner file is held locked was removed");
	CHECK_EQ(mana_model_destroy(m), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/owner", held);
	unlink(path);
	rmdir(held);
	CHECK_EQ(tt_count(NULL, 0), 1);	/* the one without an owner */
	tt_rmdir();
}

static const struct unit_test tests[] = {
	UNIT_TEST(test_destroy_removes),
	UNIT_TEST(test_exit_removes),
	UNIT_TEST(test_fork_keeps_parent_tree),
	UNIT_TEST(test_killed_reaped),
	UNIT_TEST(test_live_owner_kept),
	UNIT_TEST(test_owner_file),
};

UNIT_MAIN(tests)
