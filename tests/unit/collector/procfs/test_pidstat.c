/*
 * test_pidstat.c — /proc/<pid>/stat parsing (collector/procfs/pidstat.c).
 *
 * Real lines from the shared corpus (B16 comm cases, corpus/proc/pid-stat:
 * no trailing newline, idle state I, extreme values, comm with spaces and
 * parentheses, truncated fragments from issues) plus small synthetic lines
 * for the error paths. Every value of B16's expected table is asserted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/procfs/pidstat.h"
#include "tests/unit/support/test_support.h"

/* A complete line with known values in every field wattcal reads. */
#define GOOD_LINE "42 (worker) R 7 42 42 0 -1 4194304 10 0 0 0 1234 567 0 0 20 0 3 0 98765 1000 20"

/* ---- helpers -------------------------------------------------------------- */

/* Next line of *p (NUL-terminated text), cut at '\n'; NULL at the end. */
static char *next_line(char **p)
{
    if (!*p || !**p)
        return NULL;
    char *line = *p;
    char *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = line + strlen(line);
    }
    return line;
}

static int parse_str(const char *line, wc_pidstat *ps, wc_error *err)
{
    return wc_pidstat_parse(line, strlen(line), "test-origin", ps, err);
}

/* One row of B16's expected table. */
typedef struct b16_row {
    char id[4];
    char comm[64];
    long long pid, ppid, utime, stime, threads, starttime;
    char state;
} b16_row;

/* Parses "A  5768  Plex New Transc  S  1264  9260  137  8  1430749": the comm
 * is every token between pid and state, joined by one space. 1 on success. */
static int parse_b16_row(char *line, b16_row *r)
{
    char *tok[32];
    int n = 0;
    for (char *t = strtok(line, " \t"); t && n < 32; t = strtok(NULL, " \t"))
        tok[n++] = t;
    if (n < 9 || strlen(tok[0]) != 1 || tok[0][0] < 'A' || tok[0][0] > 'Z')
        return 0;
    memset(r, 0, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", tok[0]);
    r->pid = atoll(tok[1]);
    for (int i = 2; i < n - 6; i++) {
        if (i > 2)
            strcat(r->comm, " ");
        strcat(r->comm, tok[i]);
    }
    r->state = tok[n - 6][0];
    r->ppid = atoll(tok[n - 5]);
    r->utime = atoll(tok[n - 4]);
    r->stime = atoll(tok[n - 3]);
    r->threads = atoll(tok[n - 2]);
    r->starttime = atoll(tok[n - 1]);
    return 1;
}

/* Reads B16's expected table; returns the row count. */
static int load_b16_expected(b16_row *rows, int max)
{
    char *text = wc_test_slurp(wc_shared_fixture("cases/B16/expected.txt"), NULL);
    char *p = text;
    int n = 0, in_table = 0;
    for (char *line = next_line(&p); line; line = next_line(&p)) {
        if (strncmp(line, "case", 4) == 0) {
            in_table = 1;
            continue;
        }
        if (strncmp(line, "derived", 7) == 0)
            break;
        if (in_table && n < max && parse_b16_row(line, &rows[n]))
            n++;
    }
    free(text);
    return n;
}

/* ---- B16 ------------------------------------------------------------------ */

Test(pidstat, b16_every_value_of_the_expected_table)
{
    b16_row rows[8];
    int nrows = load_b16_expected(rows, 8);
    cr_assert_eq(nrows, 3, "B16 expected.txt: want 3 rows (A, B, C), found %d", nrows);
    char *text = wc_test_slurp(wc_shared_fixture("cases/B16/proc_pid_stat_lines.txt"), NULL);
    char *p = text;
    int checked = 0;
    for (char *line = next_line(&p); line; line = next_line(&p)) {
        if (line[0] == '#' || !line[0])
            continue;
        char *tab = strchr(line, '\t');
        cr_assert_not_null(tab, "B16 line without a tab: %s", line);
        *tab = '\0';
        const b16_row *want = NULL;
        for (int i = 0; i < nrows; i++)
            if (strcmp(rows[i].id, line) == 0)
                want = &rows[i];
        cr_assert_not_null(want, "B16 case %s has no expected row", line);
        wc_pidstat ps;
        wc_error err = {{0}};
        cr_assert_eq(wc_pidstat_parse(tab + 1, strlen(tab + 1), "B16", &ps, &err), 0,
                     "case %s: %s", line, err.msg);
        cr_assert_eq(ps.pid, want->pid, "case %s pid", line);
        cr_assert_str_eq(ps.comm, want->comm, "case %s comm", line);
        cr_assert_eq(ps.state, want->state, "case %s state", line);
        cr_assert_eq(ps.ppid, want->ppid, "case %s ppid", line);
        cr_assert_eq(ps.utime, (uint64_t)want->utime, "case %s utime", line);
        cr_assert_eq(ps.stime, (uint64_t)want->stime, "case %s stime", line);
        cr_assert_eq(ps.num_threads, want->threads, "case %s num_threads", line);
        cr_assert_eq(ps.starttime, (uint64_t)want->starttime, "case %s starttime", line);
        checked++;
    }
    free(text);
    cr_assert_eq(checked, 3);
    /* The table itself, as read (guards the table parser). */
    cr_assert_str_eq(rows[0].comm, "Plex New Transc");
    cr_assert_str_eq(rows[1].comm, "sleep (2) .sh");
    cr_assert_str_eq(rows[2].comm, ":-) 1 2 3 4 5 6");
    /* "derived": A has used (9260+137)/100 = 93.97 s, C 0.41 s. */
    cr_assert_eq(rows[0].utime + rows[0].stime, 9397);
    cr_assert_eq(rows[2].utime + rows[2].stime, 41);
}

/* ---- corpus/proc/pid-stat -------------------------------------------------- */

typedef struct corpus_case {
    const char *file;
    int32_t pid;
    const char *comm;
    char state;
    int32_t ppid;
    uint64_t utime, stime;
    int64_t threads;
    uint64_t starttime;
} corpus_case;

static const corpus_case corpus[] = {
    {"node-exporter-1-systemd.stat", 1, "systemd", 'S', 0, 36, 98, 1, 29},
    {"node-exporter-10-khungtaskd-no-newline.stat", 17, "khungtaskd", 'S', 2, 14, 0, 1, 24},
    {"node-exporter-11-rcu_preempt-idle-state-I.stat", 11, "rcu_preempt", 'I', 2, 0, 346, 1, 32},
    {"procfs-26231-vim.stat", 26231, "vim", 'R', 5392, 1677, 44, 1, 82375},
    {"procfs-26232-ata_sff-extreme-values.stat", 33, "ata_sff", 'S', 2, 0, 0, 1, 5},
    {"procfs-27079-pthread_load.stat", 27079, "pthread_load", 'S', 1, 58125, 15, 5, 4289574},
    {"rust-psutil-8-sle-ep.stat", 25097, "sle ep", 'S', 6632, 0, 0, 1, 9600533},
    {"sysstat-28-plex-new-transc.stat", 5768, "Plex New Transc", 'S', 1264, 9260, 137, 8, 1430749},
    {"uutils-procps-214-sleep-paren-2-sh.stat", 83875, "sleep (2) .sh", 'S', 75750, 0, 0, 1,
     18366278},
};

Test(pidstat, corpus_files_every_field)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", wc_shared_fixture("corpus/proc/pid-stat"));
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        const corpus_case *c = &corpus[i];
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, c->file);
        size_t len = 0;
        char *text = wc_test_slurp(path, &len);
        wc_pidstat ps;
        wc_error err = {{0}};
        cr_assert_eq(wc_pidstat_parse(text, len, path, &ps, &err), 0, "%s", err.msg);
        cr_assert_eq(ps.pid, c->pid, "%s pid", c->file);
        cr_assert_str_eq(ps.comm, c->comm, "%s comm", c->file);
        cr_assert_eq(ps.state, c->state, "%s state", c->file);
        cr_assert_eq(ps.ppid, c->ppid, "%s ppid", c->file);
        cr_assert_eq(ps.utime, c->utime, "%s utime", c->file);
        cr_assert_eq(ps.stime, c->stime, "%s stime", c->file);
        cr_assert_eq(ps.num_threads, c->threads, "%s num_threads", c->file);
        cr_assert_eq(ps.starttime, c->starttime, "%s starttime", c->file);
        free(text);
    }
}

Test(pidstat, corpus_no_trailing_newline_is_really_without_one)
{
    size_t len = 0;
    char *text = wc_test_slurp(
        wc_shared_fixture("corpus/proc/pid-stat/node-exporter-10-khungtaskd-no-newline.stat"), &len);
    cr_assert_gt(len, 0);
    cr_assert_neq(text[len - 1], '\n', "fixture changed: it should end without a newline");
    free(text);
}

Test(pidstat, fragments_from_issues)
{
    char *text = wc_test_slurp(wc_shared_fixture("corpus/proc/pid-stat/fragments-from-issues.txt"),
                               NULL);
    char *p = text;
    int lines = 0, comm_only = 0;
    for (char *line = next_line(&p); line; line = next_line(&p)) {
        if (!line[0])
            continue;
        lines++;
        wc_pidstat ps;
        wc_error err = {{0}};
        /* Every fragment is cut short: -EINVAL naming the origin. */
        cr_assert_eq(parse_str(line, &ps, &err), -EINVAL, "fragment parsed: %s", line);
        cr_assert_not_null(strstr(err.msg, "test-origin"), "%s", err.msg);
        if (line[0] == '(') {
            /* A bare "(comm)": embed it in a full line; comm is kept verbatim. */
            char full[512];
            snprintf(full, sizeof full, "9 %s S 1 9 9 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 333 0 0",
                     line);
            cr_assert_eq(parse_str(full, &ps, &err), 0, "%s", err.msg);
            size_t n = strlen(line);
            cr_assert_eq(strlen(ps.comm), n - 2);
            cr_assert_eq(memcmp(ps.comm, line + 1, n - 2), 0, "comm \"%s\" from %s", ps.comm, line);
            cr_assert_eq(ps.utime, 11);
            cr_assert_eq(ps.starttime, 333);
            comm_only++;
        }
    }
    free(text);
    cr_assert_eq(lines, 5);
    cr_assert_eq(comm_only, 3);
}

Test(pidstat, fragment_names_the_missing_field)
{
    wc_pidstat ps;
    wc_error err = {{0}};
    /* From fragments-from-issues.txt: 17 fields then "...". */
    const char *a = "4677 (tmux: client) S 4676 4677 4677 34816 4677 4194304 306 0 0 0 0 0 0 0 ...";
    cr_assert_eq(parse_str(a, &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 20 (num_threads) missing"), "%s", err.msg);
    cr_assert_str_eq(ps.comm, "tmux: client");
    const char *b = "973 (gunicorn: maste) S 967 973 967 ...";
    cr_assert_eq(parse_str(b, &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 14 (utime) missing"), "%s", err.msg);
}

/* ---- synthetic edge cases ------------------------------------------------ */

Test(pidstat, good_line_with_and_without_newline)
{
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(parse_str(GOOD_LINE "\n", &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.pid, 42);
    cr_assert_str_eq(ps.comm, "worker");
    cr_assert_eq(ps.state, 'R');
    cr_assert_eq(ps.ppid, 7);
    cr_assert_eq(ps.utime, 1234);
    cr_assert_eq(ps.stime, 567);
    cr_assert_eq(ps.num_threads, 3);
    cr_assert_eq(ps.starttime, 98765);
    wc_pidstat ps2;
    cr_assert_eq(parse_str(GOOD_LINE, &ps2, &err), 0, "%s", err.msg);
    cr_assert_eq(memcmp(&ps, &ps2, sizeof ps), 0);
}

Test(pidstat, truncated_before_starttime)
{
    /* The line cut after field 21. */
    const char *line = "42 (worker) R 7 42 42 0 -1 4194304 10 0 0 0 1234 567 0 0 20 0 3 0";
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(parse_str(line, &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "test-origin"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "field 22 (starttime) missing"), "%s", err.msg);
    /* Cut right after comm. */
    cr_assert_eq(parse_str("42 (worker)", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 3 (state) missing"), "%s", err.msg);
}

Test(pidstat, truncated_corpus_line_before_field_22)
{
    size_t len = 0;
    char *text = wc_test_slurp(
        wc_shared_fixture("corpus/proc/pid-stat/procfs-27079-pthread_load.stat"), &len);
    /* Keep fields 1..21 of the real line: cut before the 22nd space-separated token. */
    char *rp = strrchr(text, ')');
    int field = 2;
    char *q = rp + 1;
    while (*q && field < 21) {
        if (*q == ' ')
            field++;
        q++;
    }
    q = strchr(q, ' ');
    cr_assert_not_null(q);
    *q = '\0';
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(parse_str(text, &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "starttime"), "%s", err.msg);
    cr_assert_eq(ps.utime, 58125, "fields before the cut are still parsed");
    free(text);
}

Test(pidstat, malformed_fields_are_named)
{
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(parse_str("42 (w) R 7 42 42 0 -1 0 0 0 0 0 12x 5 0 0 20 0 1 0 9", &ps, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 14 (utime)"), "%s", err.msg);
    cr_assert_eq(parse_str("42 (w) R -7 42 42 0 -1 0 0 0 0 0 1 5 0 0 20 0 1 0 9", &ps, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 4 (ppid)"), "%s", err.msg);
    cr_assert_eq(parse_str("42 (w) RS 7 42 42 0 -1 0 0 0 0 0 1 5 0 0 20 0 1 0 9", &ps, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 3 (state)"), "%s", err.msg);
    /* Double space: an empty token where utime should be. */
    cr_assert_eq(parse_str("42 (w) R 7 42 42 0 -1 0 0 0 0 0  5 0 0 20 0 1 0 9", &ps, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 14 (utime)"), "%s", err.msg);
    cr_assert_eq(parse_str("x42 (w) R 7 42 42 0 -1 0 0 0 0 0 1 5 0 0 20 0 1 0 9", &ps, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 1 (pid)"), "%s", err.msg);
    cr_assert_eq(parse_str("42 w R 7", &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "field 2 (comm)"), "%s", err.msg);
    cr_assert_eq(parse_str("", &ps, &err), -EINVAL);
    /* No space between ')' and state. */
    cr_assert_eq(parse_str("42 (w)R 7 42 42 0 -1 0 0 0 0 0 1 5 0 0 20 0 1 0 9", &ps, &err),
                 -EINVAL);
}

Test(pidstat, extreme_values)
{
    wc_pidstat ps;
    wc_error err = {{0}};
    const char *line = "2147483647 (x) S 2147483647 0 0 0 -1 0 0 0 0 0 18446744073709551615 "
                       "18446744073709551614 -9223372036854775808 9223372036854775807 0 -20 "
                       "-9223372036854775808 0 18446744073709551615";
    cr_assert_eq(parse_str(line, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.pid, INT32_MAX);
    cr_assert_eq(ps.ppid, INT32_MAX);
    cr_assert_eq(ps.utime, UINT64_MAX);
    cr_assert_eq(ps.stime, UINT64_MAX - 1);
    cr_assert_eq(ps.num_threads, INT64_MIN);
    cr_assert_eq(ps.starttime, UINT64_MAX);
    /* One past the limits. */
    cr_assert_eq(parse_str("1 (x) S 1 0 0 0 -1 0 0 0 0 0 18446744073709551616 0 0 0 0 0 1 0 1",
                           &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "utime"), "%s", err.msg);
    cr_assert_eq(parse_str("2147483648 (x) S 1 0 0 0 -1 0 0 0 0 0 1 0 0 0 0 0 1 0 1", &ps, &err),
                 -EINVAL);
    cr_assert_eq(parse_str("1 (x) S 1 0 0 0 -1 0 0 0 0 0 1 0 0 0 0 0 9223372036854775808 0 1",
                           &ps, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "num_threads"), "%s", err.msg);
}

Test(pidstat, comm_is_first_open_to_last_close_and_truncated_to_fit)
{
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(parse_str("5 ((a)) b) c) R 1 0 0 0 -1 0 0 0 0 0 3 4 0 0 0 0 1 0 8", &ps, &err), 0,
                 "%s", err.msg);
    cr_assert_str_eq(ps.comm, "(a)) b) c");
    cr_assert_eq(ps.utime, 3);
    cr_assert_eq(ps.starttime, 8);
    char line[512], longcomm[101];
    memset(longcomm, 'k', 100);
    longcomm[100] = '\0';
    snprintf(line, sizeof line, "5 (%s) R 1 0 0 0 -1 0 0 0 0 0 3 4 0 0 0 0 1 0 8", longcomm);
    cr_assert_eq(parse_str(line, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(strlen(ps.comm), sizeof ps.comm - 1);
    cr_assert_eq(ps.starttime, 8);
}

Test(pidstat, self_from_real_proc)
{
    size_t len = 0;
    char *text = wc_test_slurp("/proc/self/stat", &len);
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_pidstat_parse(text, len, "/proc/self/stat", &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.pid, getpid());
    cr_assert_eq(ps.ppid, getppid());
    cr_assert_gt(ps.num_threads, 0);
    cr_assert_gt(ps.starttime, 0);
    cr_assert_neq(ps.state, '\0');
    free(text);
}

/* Field 5 (pgrp): the process group, which ties a replayed workload's
 * processes together. Line from Kepler's procfs fixture (pid 3456208). */
Test(pidstat, process_group)
{
    static const char line[] =
        "3456208 (prometheus) S 3456165 3456208 3456208 0 -1 4194560 11610543 0 22909 0 572479 "
        "27124 0 0 20 0 23 0 633412975 8254799872 426889\n";
    wc_pidstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_pidstat_parse(line, sizeof line - 1, "fixture", &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.ppid, 3456165);
    cr_assert_eq(ps.pgrp, 3456208);
    cr_assert_eq(ps.utime, 572479);
    cr_assert_eq(ps.starttime, 633412975ULL);
    static const char bad[] = "42 (x) S 1 -7 0 0 0 0 0 0 0 0 1 2 0 0 20 0 1 0 99\n";
    cr_assert_eq(wc_pidstat_parse(bad, sizeof bad - 1, "bad", &ps, &err), -EINVAL);
    cr_assert(strstr(err.msg, "pgrp") != NULL, "%s", err.msg);
}

/* proc(5) prints pgrp with %d: a process without a group (seen on real
 * machines) reads -1 and is parsed, not refused (other negatives are:
 * process_group); ppid stays unsigned. */
Test(pidstat, a_negative_pgrp_is_parsed)
{
    const char *t = "27884 (worker) S 1 -1 -1 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 "
                    "1361 0 0\n";
    wc_pidstat st;
    wc_error err = {{0}};
    cr_assert_eq(wc_pidstat_parse(t, strlen(t), "27884/stat", &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.pgrp, -1);
    cr_assert_eq(st.ppid, 1);
    cr_assert_eq(st.utime, 7);
    cr_assert_eq(st.starttime, 1361);
    const char *bad = "27884 (worker) S -1 -1 -1 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 "
                      "1361 0 0\n";
    cr_assert_lt(wc_pidstat_parse(bad, strlen(bad), "27884/stat", &st, &err), 0,
                 "a negative ppid is refused");
}
