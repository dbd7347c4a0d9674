/*
 * test_meter_sim_tree.c — the simulated node over an untrusted
 * --procfs-root and its temporary tree (issue 16): a FIFO where a
 * stressor's stat should be does not hang it (defect 2), a stat longer than
 * the buffer is not parsed cut (defect 3), and the tree of an owner killed
 * with SIGKILL is swept by the next simulated node while live trees, and
 * trees without the owner's mark (being made, or an older wattcal's), stay
 * (defect 6).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/meter/meter_sim.h"
#include "tests/unit/support/test_support.h"

#define STAT_TEXT "cpu  1000 0 500 8000 10 0 5 0 0 0\ncpu0 500 0 250 4000 5 0 3 0 0 0\n"

/* A procfs root below dir with /stat and nothing else. */
static const char *procfs(const char *dir)
{
    static char root[512];
    snprintf(root, sizeof root, "%s/proc", dir);
    wc_test_write(dir, "proc/stat", STAT_TEXT);
    return root;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

Test(meter_sim_tree, a_fifo_stat_does_not_hang_the_simulated_node, .timeout = 20)
{
    const char *dir = wc_test_tmpdir();
    setenv("TMPDIR", dir, 1);
    const char *root = procfs(dir);
    char fifo[1100];
    snprintf(fifo, sizeof fifo, "%s/777", root);
    cr_assert_eq(mkdir(fifo, 0755), 0);
    snprintf(fifo, sizeof fifo, "%s/777/stat", root);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    wc_meter m;
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_sim_init(&m, root, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_meter_sim_advance(&m, 100000000, &err), 0, "%s", err.msg);
    wc_meter_close(&m);
}

Test(meter_sim_tree, a_stressor_stat_longer_than_the_buffer_is_not_classified)
{
    const char *dir = wc_test_tmpdir();
    setenv("TMPDIR", dir, 1);
    const char *root = procfs(dir);
    char line[4200];
    int n = snprintf(line, sizeof line, "400 (wattcal-cpu %3000s", "");
    snprintf(line + n, sizeof line - (size_t)n,
             ") R 1 400 0 -1 4194304 0 0 0 0 500 0 0 0 20 0 1 0 10 1000 100 0 0 0 0 0 0 0 0 0 0 0 "
             "0 0 17 0 0 0 0 0 0\n");
    wc_test_write(dir, "proc/400/stat", line);
    wc_meter m;
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_sim_init(&m, root, NULL, &err), 0, "%s", err.msg);
    size_t classified = 99;
    cr_assert_eq(wc_meter_sim_class_busy(&m, NULL, NULL, &classified), 0);
    cr_assert_eq(classified, 0, "a stat of %d bytes was parsed", (int)strlen(line));
    wc_meter_close(&m);
}

Test(meter_sim_tree, the_tree_of_a_killed_owner_is_swept_live_ones_stay, .timeout = 30)
{
    const char *dir = wc_test_tmpdir();
    setenv("TMPDIR", dir, 1);
    const char *root = procfs(dir);
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    pid_t child = fork();
    cr_assert(child >= 0);
    if (child == 0) { /* makes a simulated node, says where, and waits to be killed */
        wc_meter m;
        wc_error err = {{0}};
        if (wc_meter_sim_init(&m, root, NULL, &err) != 0)
            _exit(1);
        const char *tree = wc_meter_sim_root(&m);
        if (write(pipefd[1], tree, strlen(tree) + 1) < 0)
            _exit(1);
        pause();
        _exit(0);
    }
    close(pipefd[1]);
    char killed[512] = "";
    cr_assert(read(pipefd[0], killed, sizeof killed) > 0);
    close(pipefd[0]);
    cr_assert(exists(killed), "%s", killed);

    wc_meter live; /* made while the child lives: both trees stay */
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_sim_init(&live, root, NULL, &err), 0, "%s", err.msg);
    cr_assert(exists(killed), "the tree of a live owner was swept");
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    cr_assert(exists(killed), "kill -9 cannot clean up: the tree is still there");

    char other[1100]; /* a marked tree whose lock nobody holds: stale too */
    snprintf(other, sizeof other, "%s/wattcal-sim-Zz9Zz9", dir);
    wc_test_write(dir, "wattcal-sim-Zz9Zz9/class/x", "1\n");
    wc_test_write(dir, "wattcal-sim-Zz9Zz9/.owner-locks-me", "");
    char unmarked[1100]; /* being made, or an older wattcal's: never swept */
    snprintf(unmarked, sizeof unmarked, "%s/wattcal-sim-Yy8Yy8", dir);
    wc_test_write(dir, "wattcal-sim-Yy8Yy8/class/x", "1\n");
    char unrelated[1100];
    snprintf(unrelated, sizeof unrelated, "%s/wattcal-sim-keepme7", dir);
    wc_test_write(dir, "wattcal-sim-keepme7/x", "1\n");

    wc_meter next;
    cr_assert_eq(wc_meter_sim_init(&next, root, NULL, &err), 0, "%s", err.msg);
    cr_assert(!exists(killed), "%s survived the next start", killed);
    cr_assert(!exists(other), "%s survived the next start", other);
    cr_assert(exists(unrelated), "a directory not named like a tree was removed");
    cr_assert(exists(unmarked), "a tree without its owner's mark was removed");
    cr_assert(exists(wc_meter_sim_root(&live)), "a live tree was swept");
    char live_root[512];
    snprintf(live_root, sizeof live_root, "%s", wc_meter_sim_root(&live));
    wc_meter_close(&live);
    cr_assert(!exists(live_root), "close leaves its tree");
    wc_meter_close(&next);
}
