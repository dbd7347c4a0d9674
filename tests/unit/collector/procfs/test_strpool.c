/*
 * test_strpool.c — interned strings (collector/procfs/strpool.c) and the
 * scanner's use of them (issue 15: an identity keeps one shared copy of its
 * exe, cgroup path and VM labels).
 *
 * The pool: equal strings give one pointer, references are counted, "" is
 * never pooled, growth past the initial table and deletion keep every other
 * string findable. The scanner: on a tree this test builds (tests/fixtures
 * style: stat, cgroup, exe link, cmdline), processes with equal exe and
 * cgroup share one copy, a VM's labels read as before, and a survivor's
 * strings stay intact when the processes that shared them are gone and freed
 * (ASan would see a use after free).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/procfs/proc_scan.h"
#include "collector/procfs/strpool.h"
#include "tests/unit/support/test_support.h"

Test(strpool, equal_strings_share_one_counted_copy)
{
    wc_strpool *p = wc_strpool_new();
    cr_assert_not_null(p);
    char a[] = "/usr/bin/server", b[] = "/usr/bin/server";
    const char *x = wc_strpool_get(p, a, sizeof a);
    const char *y = wc_strpool_get(p, b, strlen(b)); /* not NUL-terminated within len */
    cr_assert_not_null(x);
    cr_assert_eq(x, y, "one copy for equal strings");
    cr_assert_neq(x, a);
    cr_assert_str_eq(x, "/usr/bin/server");
    cr_assert_eq(wc_strpool_count(p), 1);
    cr_assert_str_eq(wc_strpool_get(p, "/usr/bin/serverX", 15), "/usr/bin/server", "cut at len");
    cr_assert_str_eq(wc_strpool_get(p, "ab\0cd", 5), "ab", "cut at the first NUL");
    cr_assert_eq(wc_strpool_count(p), 2);
    const char *e = wc_strpool_get(p, "", 0);
    cr_assert_str_eq(e, "");
    cr_assert_eq(wc_strpool_count(p), 2, "\"\" is not pooled");
    wc_strpool_put(p, e);
    wc_strpool_put(p, NULL);
    for (int i = 0; i < 2; i++)
        wc_strpool_put(p, x); /* 3 references of /usr/bin/server: one left */
    cr_assert_eq(wc_strpool_count(p), 2);
    cr_assert_str_eq(x, "/usr/bin/server", "still referenced: still there");
    wc_strpool_put(p, x);
    cr_assert_eq(wc_strpool_count(p), 1, "freed at zero references");
    cr_assert_eq(wc_strpool_get(p, "ab", 2), wc_strpool_get(p, "ab", 2));
    wc_strpool_free(p);
}

Test(strpool, growth_and_deletion_keep_the_rest)
{
    enum { N = 3000 };
    static const char *ptr[N];
    wc_strpool *p = wc_strpool_new();
    char s[32];
    for (int i = 0; i < N; i++) {
        int n = snprintf(s, sizeof s, "/kubepods/pod-%d", i);
        ptr[i] = wc_strpool_get(p, s, (size_t)n);
        cr_assert_not_null(ptr[i]);
    }
    cr_assert_eq(wc_strpool_count(p), N);
    for (int i = 0; i < N; i += 2)
        wc_strpool_put(p, ptr[i]);
    cr_assert_eq(wc_strpool_count(p), N / 2);
    for (int i = 1; i < N; i += 2) {
        int n = snprintf(s, sizeof s, "/kubepods/pod-%d", i);
        cr_assert_eq(wc_strpool_get(p, s, (size_t)n), ptr[i], "pod-%d found after deletions", i);
        cr_assert_str_eq(ptr[i], s);
    }
    cr_assert_eq(wc_strpool_count(p), N / 2);
    wc_strpool_free(p);
}

/* One process of the scanner tree: stat, cgroup, cmdline, exe link. */
static void write_proc(const char *root, int pid, const char *exe, const char *cgroup,
                       const char *cmdline, size_t cmdline_len, unsigned long long start)
{
    char rel[64], text[512], path[4200];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (p%d) S 1 %d %d 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 %llu 12345678 100 "
             "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
             pid, pid, pid, pid, start);
    wc_test_write(root, rel, text);
    snprintf(rel, sizeof rel, "%d/cgroup", pid);
    wc_test_write(root, rel, cgroup);
    snprintf(path, sizeof path, "%s/%d/cmdline", root, pid);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(cmdline, 1, cmdline_len, f), cmdline_len);
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/%d/exe", root, pid);
    cr_assert_eq(symlink(exe, path), 0, "symlink %s", path);
}

static void remove_proc(const char *root, int pid)
{
    static const char *const files[] = {"stat", "cgroup", "cmdline", "exe"};
    char path[4200];
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%d/%s", root, pid, files[i]);
        cr_assert_eq(unlink(path), 0, "unlink %s", path);
    }
    snprintf(path, sizeof path, "%s/%d", root, pid);
    cr_assert_eq(rmdir(path), 0, "rmdir %s", path);
}

static const wc_proc_identity *find_id(const wc_proc_snapshot *snap, int pid)
{
    for (size_t i = 0; i < snap->count; i++)
        if (snap->samples[i].id->pid == pid)
            return snap->samples[i].id;
    return NULL;
}

#define CG_WEB "0::/system.slice/web.service\n"
#define QEMU "/usr/bin/qemu-system-x86_64\0-name\0guest=vm7\0-uuid\0" \
             "1b4e28ba-2fa1-11d2-883f-0016d3cca427\0"

Test(strpool, scanner_shares_birth_strings_and_keeps_survivors)
{
    char root[256];
    snprintf(root, sizeof root, "%s", wc_test_tmpdir());
    for (int pid = 100; pid < 104; pid++)
        write_proc(root, pid, "/usr/sbin/web", CG_WEB, "web\0", 4, 5000 + (unsigned)pid);
    write_proc(root, 200, "/usr/bin/qemu-system-x86_64", "0::/machine.slice/vm7.scope\n", QEMU,
               sizeof QEMU - 1, 7000);
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new(root, &err);
    cr_assert_not_null(s, "%s", err.msg);
    wc_proc_snapshot snap = {0};
    cr_assert_eq(wc_proc_scan(s, &snap, &err), 0, "%s", err.msg);
    cr_assert_eq(snap.count, 5);
    cr_assert_eq(snap.errors, 0, "%s", snap.first_error.msg);
    const wc_proc_identity *w0 = find_id(&snap, 100), *w3 = find_id(&snap, 103);
    const wc_proc_identity *vm = find_id(&snap, 200);
    cr_assert(w0 && w3 && vm);
    cr_assert_str_eq(w0->exe, "/usr/sbin/web");
    cr_assert_str_eq(w0->cgroup_path, "/system.slice/web.service");
    cr_assert_eq(w0->exe, w3->exe, "one copy of a shared exe");
    cr_assert_eq(w0->cgroup_path, w3->cgroup_path, "one copy of a shared cgroup path");
    cr_assert_str_eq(w0->vm.id, "");
    cr_assert_eq(w0->vm.since, WC_VM_NONE);
    cr_assert_str_eq(vm->vm.hypervisor, "kvm");
    cr_assert_str_eq(vm->vm.id, "1b4e28ba-2fa1-11d2-883f-0016d3cca427");
    cr_assert_str_eq(vm->vm.name, "vm7");
    cr_assert_eq(vm->vm.since, WC_VM_SINCE_0100);
    cr_assert_str_eq(vm->cgroup_path, "/machine.slice/vm7.scope");
    /* Three of the four web processes exit: gone in scan 2, freed in scan 3. */
    for (int pid = 100; pid < 103; pid++)
        remove_proc(root, pid);
    for (int k = 0; k < 2; k++)
        cr_assert_eq(wc_proc_scan(s, &snap, &err), 0, "%s", err.msg);
    cr_assert_eq(snap.count, 2);
    cr_assert_eq(find_id(&snap, 103), w3, "the survivor keeps its identity");
    cr_assert_str_eq(w3->exe, "/usr/sbin/web");
    cr_assert_str_eq(w3->cgroup_path, "/system.slice/web.service");
    cr_assert_str_eq(vm->vm.name, "vm7");
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}
