/*
 * test_store_reader.c — the second read-only connection a reader on another
 * thread uses (collector/store/store.c wc_store_open_reader) and the read
 * transaction that makes it read what the first one reads
 * (wc_store_read_begin, wc_store_readers_agree): refused without the
 * transaction, refused on a file being written in WAL mode, refused when
 * the file was replaced, and the same rows as the first connection
 * otherwise.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/store/store.h"
#include "collector/store/store_read.h"
#include "tests/unit/support/test_support.h"

/* A finished run of `ticks` ticks at path (rollback journal, as record
 * leaves it). */
static void finished_run(const char *path, int ticks)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    wc_cpu_times cpu = {.cpu = -1};
    for (int t = 0; t < ticks; t++) {
        int64_t id = 0;
        cr_assert_eq(wc_store_put_tick(st, t, (int64_t)t * 1000000000, 0, 0, &cpu, 1, 2, 0, &id,
                                       &err), 0, "%s", err.msg);
    }
    cr_assert_eq(wc_store_finish_run(st, 0, (int64_t)ticks * 1000000000, ticks, 1, &err), 0, "%s",
                 err.msg);
    wc_store_close(st);
}

static int64_t ticks_of(wc_store *st)
{
    int64_t n = -1;
    wc_error err = {{0}};
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_TICK, &n, &err), 0, "%s", err.msg);
    return n;
}

Test(store_reader, only_inside_a_read_transaction_on_one_file)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/reader_a.db", wc_test_tmpdir());
    snprintf(b, sizeof b, "%s/reader_b.db", wc_test_tmpdir());
    finished_run(a, 5);
    finished_run(b, 9);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(a, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(wc_store_readers_agree(st), 0, "no read transaction yet");
    cr_assert_null(wc_store_open_reader(st, &err));
    cr_assert(strstr(err.msg, "would not read what this one reads"), "%s", err.msg);
    cr_assert_eq(wc_store_read_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_readers_agree(st), 1, "a finished run in rollback mode");
    wc_store *r = wc_store_open_reader(st, &err);
    cr_assert_not_null(r, "%s", err.msg);
    cr_assert_eq(ticks_of(r), ticks_of(st));
    wc_store_close(r);
    /* another run moved over the path: refused, never read as this one */
    cr_assert_eq(rename(b, a), 0);
    cr_assert_null(wc_store_open_reader(st, &err));
    cr_assert(strstr(err.msg, "was replaced while it was being read"), "%s", err.msg);
    cr_assert_eq(ticks_of(st), 5, "the first connection still reads its own file");
    wc_store_read_end(st);
    cr_assert_eq(wc_store_readers_agree(st), 0);
    wc_store_close(st);
}

Test(store_reader, never_on_a_file_being_written_in_wal_mode)
{
    char a[512];
    snprintf(a, sizeof a, "%s/reader_wal.db", wc_test_tmpdir());
    wc_error err = {{0}};
    wc_store *w = wc_store_open(a, WC_STORE_CREATE, &err); /* a recording: WAL, not finished */
    cr_assert_not_null(w, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    cr_assert_eq(wc_store_put_run(w, &info, &err), 0, "%s", err.msg);
    wc_store *st = wc_store_open(a, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(wc_store_read_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_readers_agree(st), 0, "a live WAL file");
    cr_assert_null(wc_store_open_reader(st, &err));
    /* the read transaction keeps its moment while the writer goes on */
    int64_t before = ticks_of(st);
    wc_cpu_times cpu = {.cpu = -1};
    int64_t id = 0;
    cr_assert_eq(wc_store_put_tick(w, 1, 1000000000, 0, 0, &cpu, 1, 2, 0, &id, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(ticks_of(st), before, "a tick committed after the start is not seen");
    wc_store_read_end(st);
    cr_assert_eq(ticks_of(st), before + 1, "seen once the transaction ends");
    wc_store_close(st);
    wc_store_close(w);
}
