/*
 * test_common.c — durations, root-relative paths and file reads, and a
 * library's entry points loaded by name (common/).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/wc_clock.h"
#include "common/wc_dl.h"
#include "common/wc_error.h"
#include "common/wc_fs.h"
#include "tests/unit/support/test_support.h"

Test(duration, units)
{
    int64_t ns = 0;
    cr_assert_eq(wc_parse_duration_ns("1s", &ns), 0);
    cr_assert_eq(ns, 1000000000LL);
    cr_assert_eq(wc_parse_duration_ns("500ms", &ns), 0);
    cr_assert_eq(ns, 500000000LL);
    cr_assert_eq(wc_parse_duration_ns("2.5s", &ns), 0);
    cr_assert_eq(ns, 2500000000LL);
    cr_assert_eq(wc_parse_duration_ns("10m", &ns), 0);
    cr_assert_eq(ns, 600000000000LL);
    cr_assert_eq(wc_parse_duration_ns("3", &ns), 0);
    cr_assert_eq(ns, 3000000000LL);
    cr_assert_eq(wc_parse_duration_ns("250us", &ns), 0);
    cr_assert_eq(ns, 250000LL);
}

Test(duration, rejects_garbage)
{
    int64_t ns = 0;
    cr_assert_eq(wc_parse_duration_ns("", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("fast", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("-1s", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("5 parsecs", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("1e30h", &ns), -EINVAL);
}

Test(clock, monotonic_and_boot_advance)
{
    int64_t a = wc_mono_ns(), b = wc_mono_ns();
    cr_assert(b >= a && a > 0);
    cr_assert(wc_boot_ns() >= wc_mono_ns() - 1000000);
    char buf[32];
    cr_assert_str_eq(wc_format_wall_iso(1700000000123456789LL, buf, sizeof buf),
                     "2023-11-14T22:13:20.123Z");
}

Test(fs, path_under_root)
{
    char p[64];
    cr_assert_eq(wc_path(p, sizeof p, "/host/proc", "%d/stat", 42), 0);
    cr_assert_str_eq(p, "/host/proc/42/stat");
    cr_assert_eq(wc_path(p, 8, "/host/proc", "%d/stat", 42), -ENAMETOOLONG);
}

Test(fs, read_u64_and_errors_name_the_file)
{
    const char *d = wc_test_tmpdir();
    wc_test_write(d, "energy_uj", "240422366267\n");
    wc_test_write(d, "bad", "12ab\n");
    wc_test_write(d, "empty", "");
    char p[512];
    uint64_t v = 0;
    wc_error err = {{0}};
    snprintf(p, sizeof p, "%s/energy_uj", d);
    cr_assert_eq(wc_read_u64(p, &v, &err), 0);
    cr_assert_eq(v, 240422366267ULL);
    snprintf(p, sizeof p, "%s/bad", d);
    cr_assert_eq(wc_read_u64(p, &v, &err), -EINVAL);
    cr_assert(strstr(err.msg, p) && strstr(err.msg, "12ab"), "%s", err.msg);
    snprintf(p, sizeof p, "%s/empty", d);
    cr_assert_eq(wc_read_u64(p, &v, &err), -EINVAL);
    snprintf(p, sizeof p, "%s/missing", d);
    cr_assert_eq(wc_read_u64(p, &v, &err), -ENOENT);
    cr_assert(strstr(err.msg, p) != NULL, "%s", err.msg);
}

Test(fs, parse_u64_overflow)
{
    uint64_t v;
    cr_assert_eq(wc_parse_u64("18446744073709551615", 20, &v), 0);
    cr_assert_eq(v, UINT64_MAX);
    cr_assert_eq(wc_parse_u64("18446744073709551616", 20, &v), -EINVAL);
    cr_assert_eq(wc_parse_u64("", 0, &v), -EINVAL);
}

Test(fs, read_text_too_big_and_line)
{
    const char *d = wc_test_tmpdir();
    wc_test_write(d, "name", "package-0\n");
    char p[512], buf[8];
    snprintf(p, sizeof p, "%s/name", d);
    cr_assert_eq(wc_read_text(p, buf, 4, NULL, NULL), -EFBIG);
    cr_assert_eq(wc_read_line(p, buf, sizeof buf, NULL), -EFBIG);
    char line[32];
    cr_assert_eq(wc_read_line(p, line, sizeof line, NULL), 0);
    cr_assert_str_eq(line, "package-0");
}

Test(error, prefix_keeps_message)
{
    wc_error err = {{0}};
    wc_error_set(&err, -EIO, "disk %s", "full");
    cr_assert_eq(wc_error_prefix(&err, -EIO, "writing %s: ", "run.db"), -EIO);
    cr_assert_str_eq(err.msg, "writing run.db: disk full");
}

/* A FIFO (or device) planted where a file should be is refused at once: a
 * read can neither block on it nor run forever. */
Test(fs, secret_one_line_refused_not_cut)
{
    const char *dir = wc_test_tmpdir();
    char path[512], buf[64];
    wc_error err = {{0}};
    snprintf(path, sizeof path, "%s/s", dir);
    wc_test_write(dir, "s", "tok3n\n");
    cr_assert_eq(wc_read_secret(path, buf, sizeof buf, &err), 0, "%s", err.msg);
    cr_assert_str_eq(buf, "tok3n");
    wc_test_write(dir, "s", "tok3n");
    cr_assert_eq(wc_read_secret(path, buf, sizeof buf, &err), 0);
    cr_assert_str_eq(buf, "tok3n");
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite("sec\0ret\n", 1, 8, f);
    fclose(f);
    cr_assert_eq(wc_read_secret(path, buf, sizeof buf, &err), -EINVAL);
    cr_assert(strstr(err.msg, "NUL byte") && strstr(err.msg, path), "%s", err.msg);
    cr_assert_str_eq(buf, "", "nothing of a refused secret is left");
    const char *bad[] = {"a b\n", "a\tb", "two\nlines\n", "\n", "", " lead\n", "trail \n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wc_test_write(dir, "s", bad[i]);
        cr_assert_eq(wc_read_secret(path, buf, sizeof buf, &err), -EINVAL, "case %zu", i);
    }
    cr_assert_eq(wc_read_secret("/nonexistent/s", buf, sizeof buf, &err), -ENOENT);
}

Test(fs, fifo_and_device_refused_without_blocking)
{
    const char *d = wc_test_tmpdir();
    char p[512], buf[64];
    snprintf(p, sizeof p, "%s/energy_uj", d);
    cr_assert_eq(mkfifo(p, 0600), 0);
    wc_error err = {{0}};
    uint64_t v;
    cr_assert_eq(wc_read_u64(p, &v, &err), -EINVAL);
    cr_assert(strstr(err.msg, p) && strstr(err.msg, "not a regular file"), "%s", err.msg);
    char *all = NULL;
    cr_assert_eq(wc_read_all("/dev/zero", &all, NULL, &err), -EINVAL);
    cr_assert_null(all);
    cr_assert_eq(wc_read_text(d, buf, sizeof buf, NULL, &err), -EISDIR);
    unlink(p);
}

Test(duration, compound_parts_and_days)
{
    int64_t ns = 0;
    cr_assert_eq(wc_parse_duration_ns("1h30m", &ns), 0);
    cr_assert_eq(ns, 5400LL * WC_NS_PER_S);
    cr_assert_eq(wc_parse_duration_ns("1d", &ns), 0);
    cr_assert_eq(ns, 86400LL * WC_NS_PER_S);
    cr_assert_eq(wc_parse_duration_ns("90s", &ns), 0);
    cr_assert_eq(ns, 90LL * WC_NS_PER_S);
    cr_assert_eq(wc_parse_duration_ns("1m30s500ms", &ns), 0);
    cr_assert_eq(ns, 90500000000LL);
    cr_assert_eq(wc_parse_duration_ns("2min", &ns), 0);
    cr_assert_eq(ns, 120LL * WC_NS_PER_S);
    cr_assert_eq(wc_parse_duration_ns(".5s", &ns), 0);
    cr_assert_eq(ns, 500000000LL);
    cr_assert_eq(wc_parse_duration_ns("1h30", &ns), -EINVAL, "a bare number only alone");
    cr_assert_eq(wc_parse_duration_ns("1.2.3s", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("0x10s", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("1w", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("inf", &ns), -EINVAL);
    cr_assert_eq(wc_parse_duration_ns("1h ", &ns), -EINVAL);
}

/* wc_dl: a table of two entry points resolved from libc by name. */
typedef struct dl_table {
    __typeof__(strlen) *len;
    __typeof__(strcmp) *cmp;
} dl_table;

Test(dl, resolves_a_table_and_names_what_is_missing)
{
    const wc_dl_sym ok[] = {{"strlen", offsetof(dl_table, len)}, {"strcmp", offsetof(dl_table, cmp)}};
    dl_table t = {0};
    wc_error err = {{0}};
    cr_assert_eq(wc_dl_load("libc.so.6", "libc6", ok, 2, &t, &err), 0, "%s", err.msg);
    cr_assert_eq(t.len("watts"), 5);
    cr_assert_eq(t.cmp("a", "a"), 0);
    cr_assert_eq(wc_dl_load("libwattcal-nowhere.so.9", "the nowhere runtime", ok, 2, &t, &err), -ENOENT);
    cr_assert(strstr(err.msg, "libwattcal-nowhere.so.9 could not be loaded (") &&
                  strstr(err.msg, "): install the nowhere runtime"),
              "%s", err.msg);
    const wc_dl_sym bad[] = {{"strlen", offsetof(dl_table, len)},
                             {"wattcal_no_such_symbol", offsetof(dl_table, cmp)}};
    cr_assert_eq(wc_dl_load("libc.so.6", "libc6", bad, 2, &t, &err), -ENOENT);
    cr_assert(strstr(err.msg, "libc.so.6 has no wattcal_no_such_symbol ("), "%s", err.msg);
}
