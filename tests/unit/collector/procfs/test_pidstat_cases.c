/*
 * test_pidstat_cases.c — /proc/<pid>/stat parsing (collector/procfs/pidstat.c)
 * on the project's own lines, tests/fixtures/procfs/pid-stat: the comm cases
 * of B16 (spaces, ") " inside, ":-)"), a file without a trailing newline, the
 * idle state I, extreme signed values, a many-threaded process, and
 * fragments cut short as issue reports quote them. test_pidstat.c proves the
 * same on the shared B16 case and corpus/proc/pid-stat.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/pidstat.h"
#include "tests/unit/support/test_support.h"

#define DIR_ "procfs/pid-stat/"

static int parse_file(const char *name, wc_pidstat *ps, wc_error *err, size_t *len_out)
{
    char rel[256];
    snprintf(rel, sizeof rel, DIR_ "%s", name);
    size_t len = 0;
    char *text = wc_test_slurp(wc_own_fixture(rel), &len);
    int rc = wc_pidstat_parse(text, len, rel, ps, err);
    free(text);
    if (len_out)
        *len_out = len;
    return rc;
}

/* Checks one "case<TAB>line<TAB>comm|state|ppid|utime|stime|threads|start" row. */
static void check_comm_case(char *row)
{
    char *line = strchr(row, '\t');
    cr_assert_not_null(line);
    *line++ = '\0';
    char *want = strchr(line, '\t');
    cr_assert_not_null(want, "case %s: no expectation", row);
    *want++ = '\0';
    char *f[7];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(want, "|", &save); t && n < 7;
         t = strtok_r(NULL, "|", &save))
        f[n++] = t;
    cr_assert_eq(n, 7, "case %s", row);
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_pidstat_parse(line, strlen(line), row, &ps, &err), 0, "case %s: %s", row,
                 err.msg);
    cr_assert_str_eq(ps.comm, f[0], "case %s comm", row);
    cr_assert_eq(ps.state, f[1][0], "case %s state", row);
    cr_assert_eq(ps.ppid, atoi(f[2]), "case %s ppid", row);
    cr_assert_eq(ps.utime, strtoull(f[3], NULL, 10), "case %s utime", row);
    cr_assert_eq(ps.stime, strtoull(f[4], NULL, 10), "case %s stime", row);
    cr_assert_eq(ps.num_threads, atoll(f[5]), "case %s num_threads", row);
    cr_assert_eq(ps.starttime, strtoull(f[6], NULL, 10), "case %s starttime", row);
    cr_assert_eq(ps.pid, atoi(line), "case %s pid", row);
}

Test(pidstat_cases, comm_with_spaces_and_parentheses)
{
    char *text = wc_test_slurp(wc_own_fixture(DIR_ "comm-cases.txt"), NULL);
    int checked = 0;
    char *save = NULL;
    for (char *row = strtok_r(text, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
        if (row[0] == '#')
            continue;
        check_comm_case(row);
        checked++;
    }
    free(text);
    cr_assert_eq(checked, 3);
}

typedef struct file_case {
    const char *file;
    int32_t pid;
    const char *comm;
    char state;
    int32_t ppid;
    uint64_t utime, stime;
    int64_t threads;
    uint64_t starttime;
} file_case;

Test(pidstat_cases, files_every_field)
{
    static const file_case cases[] = {
        {"no-trailing-newline.stat", 23, "kauditd", 'S', 2, 3, 11, 1, 31},
        {"idle-state-I.stat", 14, "rcu_sched", 'I', 2, 0, 512, 1, 35},
        {"extreme-values.stat", 41, "kblockd", 'S', 2, 0, 0, 1, 7},
        {"many-threads.stat", 30550, "java", 'S', 1, 734211, 40992, 212, 5532100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const file_case *c = &cases[i];
        wc_pidstat ps;
        wc_error err = {{0}};
        cr_assert_eq(parse_file(c->file, &ps, &err, NULL), 0, "%s", err.msg);
        cr_assert_eq(ps.pid, c->pid, "%s pid", c->file);
        cr_assert_str_eq(ps.comm, c->comm, "%s comm", c->file);
        cr_assert_eq(ps.state, c->state, "%s state", c->file);
        cr_assert_eq(ps.ppid, c->ppid, "%s ppid", c->file);
        cr_assert_eq(ps.utime, c->utime, "%s utime", c->file);
        cr_assert_eq(ps.stime, c->stime, "%s stime", c->file);
        cr_assert_eq(ps.num_threads, c->threads, "%s num_threads", c->file);
        cr_assert_eq(ps.starttime, c->starttime, "%s starttime", c->file);
    }
}

Test(pidstat_cases, no_trailing_newline_is_really_without_one)
{
    char *text;
    size_t len = 0;
    text = wc_test_slurp(wc_own_fixture(DIR_ "no-trailing-newline.stat"), &len);
    cr_assert_gt(len, 0);
    cr_assert_neq(text[len - 1], '\n');
    free(text);
}

Test(pidstat_cases, fragments_cut_short)
{
    char *text = wc_test_slurp(wc_own_fixture(DIR_ "fragments.txt"), NULL);
    int lines = 0, comm_only = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lines++;
        wc_pidstat ps;
        wc_error err = {{0}};
        cr_assert_eq(wc_pidstat_parse(line, strlen(line), "frag-origin", &ps, &err), -EINVAL,
                     "fragment parsed: %s", line);
        cr_assert_not_null(strstr(err.msg, "frag-origin"), "%s", err.msg);
        if (line[0] != '(')
            continue;
        /* a bare "(comm)": inside a full line the comm is kept verbatim */
        char full[512];
        snprintf(full, sizeof full, "9 %s S 1 9 9 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 333 0 0", line);
        cr_assert_eq(wc_pidstat_parse(full, strlen(full), "frag-origin", &ps, &err), 0, "%s",
                     err.msg);
        size_t n = strlen(line);
        cr_assert_eq(strlen(ps.comm), n - 2);
        cr_assert_eq(memcmp(ps.comm, line + 1, n - 2), 0, "comm \"%s\" from %s", ps.comm, line);
        cr_assert_eq(ps.utime, 11);
        cr_assert_eq(ps.starttime, 333);
        comm_only++;
    }
    free(text);
    cr_assert_eq(lines, 5);
    cr_assert_eq(comm_only, 3);
}

Test(pidstat_cases, many_threads_line_cut_before_field_22)
{
    size_t len = 0;
    char *text = wc_test_slurp(wc_own_fixture(DIR_ "many-threads.stat"), &len);
    /* keep fields 1..21: cut before the 22nd space-separated token */
    char *q = strrchr(text, ')') + 1;
    for (int field = 2; *q && field < 21; q++)
        if (*q == ' ')
            field++;
    q = strchr(q, ' ');
    cr_assert_not_null(q);
    *q = '\0';
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_pidstat_parse(text, strlen(text), "cut", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "starttime"), "%s", err.msg);
    cr_assert_eq(ps.utime, 734211, "fields before the cut are still parsed");
    free(text);
}
