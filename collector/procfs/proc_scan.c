/*
 * proc_scan.c — the per-tick process sampler (see proc_scan.h).
 *
 * The recorder calls wc_proc_scan once per tick; attribution consumes the
 * samples and the store writes new identities. The steady-state cost per
 * process is one pread of its <pid>/stat, kept open since the process was
 * first seen (issue 15: about half the open+read+close floor make bench
 * measures), plus an in-place parse and a lookup in an open-addressing hash
 * (linear probing, backward-shift deletion) keyed by pid. Kept files stay
 * within RLIMIT_NOFILE (raised to its hard limit) less a reserve; beyond it,
 * or when it is too low, a stat is opened, read and closed every scan. A
 * kept file is trusted only while it speaks for its pid: on a real procfs a
 * dead process's fd reads ESRCH (a reused pid's old fd too: it names the
 * old task), on a fake tree the file is re-checked with fstatat each scan
 * (a replaced <pid>/stat would otherwise be read from the unlinked inode);
 * either way the scanner then opens <pid>/stat by name, and a process that
 * exited between readdir and read is counted as vanished. Nothing is allocated per process per scan: identities are allocated
 * once when a (pid, starttime) is first seen, the snapshot's arrays are
 * reused. Identities not seen in a scan go to snap->gone and to the
 * scanner's `dying` list, which is freed at the start of the next scan.
 */
#include "collector/procfs/proc_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "collector/procfs/pidstat.h"
#include "collector/procfs/strpool.h"
#include "common/wc_fs.h"

/* Large enough for any /proc/<pid>/stat (52 fields of <= 20 digits + comm). */
#define SCAN_STAT_BUF WC_PIDSTAT_BUF
/* /proc/<pid>/cgroup of a deeply nested v1 hierarchy fits easily. */
#define SCAN_CGROUP_BUF 16384
#define SCAN_INITIAL_SLOTS 1024u
/* Descriptors left to the rest of the process (SQLite, meters, HTTP clients,
 * cgroup reads) when the scanner keeps stat files open. */
#define SCAN_FD_RESERVE 128
#define PROC_SUPER_MAGIC_ 0x9fa0 /* statfs f_type of a real procfs */

/* One identity plus the scanner's bookkeeping. */
typedef struct scan_entry {
    wc_proc_identity id;
    uint32_t seen_gen;   /* generation of the last scan that saw it (an entry unseen for
                          * one scan is retired, so a wrapped counter never matches) */
    uint32_t live_index; /* position in scanner->live */
    int fd;              /* its <pid>/stat kept open (-1: none) */
    dev_t dev;           /* and that file's identity (fake trees: re-checked per scan) */
    ino_t ino;
} scan_entry;

/* One hash slot; e == NULL means empty. */
typedef struct scan_slot {
    int32_t pid;
    scan_entry *e;
} scan_slot;

/* A growable array of entry pointers. */
typedef struct entry_vec {
    scan_entry **v;
    size_t n, cap;
} entry_vec;

struct wc_proc_scanner {
    char *root;          /* procfs_root as given */
    DIR *dir;            /* the root, rewound at every scan */
    int dfd;             /* dirfd(dir), base of every openat */
    uint32_t gen;        /* scan counter (wraps) */
    scan_slot *slots;    /* power-of-two capacity */
    size_t cap, count;
    unsigned bits;       /* log2(cap) */
    entry_vec live;      /* identities in the table */
    entry_vec dying;     /* gone in the last scan; freed at the next one */
    size_t fd_budget;    /* stat files that may stay open (0: open+read+close each) */
    size_t fd_kept;      /* stat files open now */
    int real_proc;       /* the root is a procfs: a dead process's fd reads ESRCH */
    wc_strpool *pool;    /* every identity's exe, cgroup path and VM labels, shared */
    wc_cgroup_info cg;   /* the birth-time reads, parsed here, then interned */
    wc_vm_info vm;
    char cgbuf[SCAN_CGROUP_BUF];
};

/* ---- small containers ---------------------------------------------------- */

static int vec_push(entry_vec *v, scan_entry *e)
{
    if (v->n == v->cap) {
        size_t ncap = v->cap ? v->cap * 2 : 256;
        scan_entry **nv = realloc(v->v, ncap * sizeof *nv);
        if (!nv)
            return -ENOMEM;
        v->v = nv;
        v->cap = ncap;
    }
    v->v[v->n++] = e;
    return 0;
}

/* Removes live[e->live_index] by moving the last element into its place. */
static void live_remove(wc_proc_scanner *s, scan_entry *e)
{
    uint32_t i = e->live_index;
    scan_entry *last = s->live.v[--s->live.n];
    s->live.v[i] = last;
    last->live_index = i;
}

/* ---- the pid hash --------------------------------------------------------- */

static size_t ht_home(const wc_proc_scanner *s, int32_t pid)
{
    uint64_t h = (uint64_t)(uint32_t)pid * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> (64 - s->bits));
}

/* Index of pid's slot, or of the empty slot where it would go. */
static size_t ht_find(const wc_proc_scanner *s, int32_t pid)
{
    size_t mask = s->cap - 1;
    size_t i = ht_home(s, pid);
    while (s->slots[i].e && s->slots[i].pid != pid)
        i = (i + 1) & mask;
    return i;
}

static int ht_alloc(wc_proc_scanner *s, unsigned bits)
{
    scan_slot *ns = calloc((size_t)1 << bits, sizeof *ns);
    if (!ns)
        return -ENOMEM;
    scan_slot *old = s->slots;
    size_t old_cap = s->cap;
    s->slots = ns;
    s->cap = (size_t)1 << bits;
    s->bits = bits;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].e)
            s->slots[ht_find(s, old[i].pid)] = old[i];
    free(old);
    return 0;
}

/* Empties slot i, shifting later members of the probe run back (no tombstones). */
static void ht_delete_at(wc_proc_scanner *s, size_t i)
{
    size_t mask = s->cap - 1;
    for (size_t j = (i + 1) & mask; s->slots[j].e; j = (j + 1) & mask) {
        size_t home = ht_home(s, s->slots[j].pid);
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            s->slots[i] = s->slots[j];
            i = j;
        }
    }
    s->slots[i].e = NULL;
    s->slots[i].pid = 0;
    s->count--;
}

/* ---- reading one process ---------------------------------------------------- */

/* Reads a kept-open stat file from offset 0, whole or refused like
 * wc_pidstat_read_at: the byte count, -EFBIG when longer than cap - 1, or
 * -errno. */
static ssize_t pread_whole(int fd, char *buf, size_t cap)
{
    ssize_t r;
    do
        r = pread(fd, buf, cap - 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -errno;
    char more;
    if ((size_t)r == cap - 1 && pread(fd, &more, 1, (off_t)(cap - 1)) != 0)
        return -EFBIG;
    buf[r] = '\0';
    return r;
}

static void drop_fd(wc_proc_scanner *s, scan_entry *e)
{
    if (e->fd < 0)
        return;
    close(e->fd);
    e->fd = -1;
    s->fd_kept--;
}

/* Reads e's kept-open stat file. -EBADF when there is none or it no longer
 * says anything about pid: on a real procfs a dead process's fd fails
 * (ESRCH), on a fake tree the file under <pid>/ was replaced or removed
 * (checked by fstatat every scan: the old fd would read the unlinked file
 * forever). The caller then opens <pid>/stat by name. */
static ssize_t read_kept(wc_proc_scanner *s, scan_entry *e, const char *rel, char *buf,
                         size_t cap)
{
    if (e->fd < 0)
        return -EBADF;
    struct stat st;
    if (!s->real_proc &&
        (fstatat(s->dfd, rel, &st, 0) != 0 || st.st_ino != e->ino || st.st_dev != e->dev)) {
        drop_fd(s, e);
        return -EBADF;
    }
    ssize_t n = pread_whole(e->fd, buf, cap);
    if (n <= 0 && n != -EFBIG) {
        drop_fd(s, e); /* gone (or its pid reused): the name decides */
        return -EBADF;
    }
    return n;
}

/* Opens rel and reads it whole; keeps the descriptor in *kept (a regular
 * file, within the budget) or closes it. Returns as pread_whole (0 = empty
 * read). */
static ssize_t open_read(wc_proc_scanner *s, const char *rel, char *buf, size_t cap, int *kept)
{
    *kept = -1;
    int fd = openat(s->dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    ssize_t r;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        r = pread_whole(fd, buf, cap);
    } else { /* a FIFO or device planted in a fake tree: the one hardened read, never kept */
        close(fd);
        size_t len = 0;
        int rc = wc_pidstat_read_at(s->dfd, rel, buf, cap, &len);
        return rc ? rc : (ssize_t)len;
    }
    if (r > 0 && S_ISREG(st.st_mode) && s->fd_kept < s->fd_budget)
        *kept = fd;
    else
        close(fd);
    return r;
}

/* Gives the descriptor open_read kept to pid's entry of this scan (or closes it). */
static void adopt_fd(wc_proc_scanner *s, int32_t pid, int fd)
{
    if (fd < 0)
        return;
    scan_entry *e = s->slots[ht_find(s, pid)].e;
    struct stat st;
    if (!e || e->fd >= 0 || e->seen_gen != s->gen || fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    e->fd = fd;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    s->fd_kept++;
}

/* Records a per-process failure; only the first is described. */
static void count_error(wc_proc_snapshot *snap, const wc_error *e)
{
    if (snap->errors++ == 0)
        snap->first_error = *e;
}

/* True when errno says the process is gone. */
static int is_vanished(int e)
{
    return e == ENOENT || e == ESRCH;
}

/* readlink <pid>/exe; "" on any failure (kernel threads, permissions). */
static void read_exe(const wc_proc_scanner *s, int32_t pid, char *out, size_t cap)
{
    char rel[32];
    snprintf(rel, sizeof rel, "%d/exe", (int)pid);
    ssize_t n = readlinkat(s->dfd, rel, out, cap - 1);
    out[n > 0 ? (size_t)n : 0] = '\0';
}

/* Reads and parses <root>/<pid>/cgroup into s->cg (emptied first). A
 * vanished process leaves it empty silently; other failures are counted. */
static void read_cgroup(wc_proc_scanner *s, const wc_proc_identity *id, wc_proc_snapshot *snap)
{
    char path[4096];
    memset(&s->cg, 0, sizeof s->cg);
    wc_error e = {{0}};
    if (wc_path(path, sizeof path, s->root, "%d/cgroup", (int)id->pid) != 0) {
        wc_error_set(&e, -ENAMETOOLONG, "%s/%d/cgroup: path too long", s->root, (int)id->pid);
        count_error(snap, &e);
        return;
    }
    size_t len = 0;
    int rc = wc_read_text(path, s->cgbuf, sizeof s->cgbuf, &len, &e);
    if (rc == -EFBIG) {
        /* Keep the complete lines only. */
        while (len > 0 && s->cgbuf[len - 1] != '\n')
            len--;
        rc = 0;
    }
    if (rc) {
        if (!is_vanished(-rc))
            count_error(snap, &e);
        return;
    }
    if (wc_cgroup_parse(s->cgbuf, len, path, &s->cg, &e) != 0)
        count_error(snap, &e);
}

/* Drops the identity's references to the pool's strings. */
static void release_strings(wc_proc_scanner *s, wc_proc_identity *id)
{
    const char **str[5] = {&id->exe, &id->cgroup_path, &id->vm.hypervisor, &id->vm.id,
                           &id->vm.name};
    for (int i = 0; i < 5; i++) {
        wc_strpool_put(s->pool, *str[i]);
        *str[i] = NULL;
    }
}

/* Frees an entry and its references (its descriptor is already dropped). */
static void free_entry(wc_proc_scanner *s, scan_entry *e)
{
    if (!e)
        return;
    release_strings(s, &e->id);
    free(e);
}

/* Interns the birth-time reads (exe, s->cg, s->vm) into id. -ENOMEM. */
static int intern_birth(wc_proc_scanner *s, wc_proc_identity *id, const char *exe)
{
    wc_cgroup_ids_of(&s->cg, &id->cgroup);
    id->vm.since = s->vm.since;
    id->vm.truncated = s->vm.truncated;
    id->exe = wc_strpool_get(s->pool, exe, SIZE_MAX);
    id->cgroup_path = wc_strpool_get(s->pool, s->cg.path, sizeof s->cg.path);
    id->vm.hypervisor = wc_strpool_get(s->pool, s->vm.hypervisor, sizeof s->vm.hypervisor);
    id->vm.id = wc_strpool_get(s->pool, s->vm.id, sizeof s->vm.id);
    id->vm.name = wc_strpool_get(s->pool, s->vm.name, sizeof s->vm.name);
    if (id->exe && id->cgroup_path && id->vm.hypervisor && id->vm.id && id->vm.name)
        return 0;
    release_strings(s, id);
    return -ENOMEM;
}

/* Allocates the identity of a (pid, starttime) seen for the first time. */
static scan_entry *new_entry(wc_proc_scanner *s, int32_t pid, const wc_pidstat *ps,
                             wc_proc_snapshot *snap)
{
    scan_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->id.pid = pid;
    e->id.starttime = ps->starttime;
    e->id.ppid = ps->ppid;
    e->id.pgid = ps->pgrp;
    e->id.store_id = -1;
    e->fd = -1;
    memcpy(e->id.comm, ps->comm, sizeof e->id.comm);
    char exe[256];
    read_exe(s, pid, exe, sizeof exe);
    read_cgroup(s, &e->id, snap);
    wc_error ve = {{0}};
    int vrc = wc_vm_read(s->root, pid, &s->vm, &ve);
    if (vrc && !is_vanished(-vrc))
        count_error(snap, &ve);
    if (intern_birth(s, &e->id, exe) != 0) {
        free(e);
        return NULL;
    }
    e->seen_gen = s->gen;
    return e;
}

/* Moves an identity out of the live set into gone/dying. */
static int retire(wc_proc_scanner *s, scan_entry *e, wc_proc_snapshot *snap)
{
    live_remove(s, e);
    drop_fd(s, e);
    if (vec_push(&s->dying, e) != 0) {
        free_entry(s, e); /* cannot be kept for one more scan: not listed as gone */
        return -ENOMEM;
    }
    if (snap->gone_count == snap->gone_cap) {
        size_t ncap = snap->gone_cap ? snap->gone_cap * 2 : 64;
        const wc_proc_identity **ng = realloc(snap->gone, ncap * sizeof *ng);
        if (!ng)
            return -ENOMEM;
        snap->gone = ng;
        snap->gone_cap = ncap;
    }
    snap->gone[snap->gone_count++] = &e->id;
    return 0;
}

/* Appends one sample to the snapshot. */
static int push_sample(wc_proc_snapshot *snap, const scan_entry *e, const wc_pidstat *ps,
                       int is_new)
{
    if (snap->count == snap->cap) {
        size_t ncap = snap->cap ? snap->cap * 2 : 512;
        wc_proc_sample *ns = realloc(snap->samples, ncap * sizeof *ns);
        if (!ns)
            return -ENOMEM;
        snap->samples = ns;
        snap->cap = ncap;
    }
    wc_proc_sample *p = &snap->samples[snap->count++];
    p->id = &e->id;
    p->utime = ps->utime;
    p->stime = ps->stime;
    p->num_threads = ps->num_threads;
    p->is_new = is_new;
    size_t clen = strnlen(ps->comm, sizeof p->comm - 1); /* cut, not an error */
    memcpy(p->comm, ps->comm, clen);
    p->comm[clen] = '\0';
    return 0;
}

/* Inserts a new identity at hash `slot` (replacing a reused pid's old one). */
static int insert_new(wc_proc_scanner *s, size_t slot, int32_t pid, const wc_pidstat *ps,
                      wc_proc_snapshot *snap, scan_entry **out)
{
    scan_entry *e = new_entry(s, pid, ps, snap);
    if (!e || vec_push(&s->live, e) != 0) {
        free_entry(s, e);
        return -ENOMEM;
    }
    e->live_index = (uint32_t)(s->live.n - 1);
    scan_entry *old = s->slots[slot].e;
    s->slots[slot].pid = pid;
    s->slots[slot].e = e;
    *out = e;
    if (old)
        return retire(s, old, snap); /* pid reuse: the old identity is gone */
    s->count++;
    return 0;
}

/* Handles one parsed stat: lookup by pid, identity check, sample. */
static int account(wc_proc_scanner *s, int32_t pid, const wc_pidstat *ps,
                   wc_proc_snapshot *snap)
{
    size_t slot = ht_find(s, pid);
    scan_entry *e = s->slots[slot].e;
    if (e && e->id.starttime == ps->starttime) {
        if (e->seen_gen == s->gen)
            return 0; /* listed twice by one readdir pass */
        e->seen_gen = s->gen;
        return push_sample(snap, e, ps, 0);
    }
    if (!e && (s->count + 1) * 4 > s->cap * 3) { /* at most 3/4 full */
        if (ht_alloc(s, s->bits + 1) != 0)
            return -ENOMEM;
        slot = ht_find(s, pid);
    }
    int rc = insert_new(s, slot, pid, ps, snap, &e);
    if (rc)
        return rc;
    return push_sample(snap, e, ps, 1);
}

/* Describes a malformed stat (re-parsed with an origin only on failure). */
static void malformed(const wc_proc_scanner *s, const char *name, const char *buf, size_t n,
                      wc_proc_snapshot *snap)
{
    char origin[4096];
    wc_error e = {{0}};
    wc_pidstat ps;
    if (wc_path(origin, sizeof origin, s->root, "%s/stat", name) != 0)
        snprintf(origin, sizeof origin, "%s/stat", name);
    wc_pidstat_parse(buf, n, origin, &ps, &e);
    count_error(snap, &e);
}

/* Reads <pid>/stat: through the entry's kept-open file when there is one
 * that still speaks for pid, else by name (keeping the new descriptor in
 * *fd when it may stay open). Returns as pread_whole (0 = empty read). */
static ssize_t read_pid_stat(wc_proc_scanner *s, const char *name, size_t name_len, int32_t pid,
                             char *buf, size_t cap, int *fd)
{
    char rel[32];
    memcpy(rel, name, name_len);
    memcpy(rel + name_len, "/stat", sizeof "/stat");
    *fd = -1;
    scan_entry *e = s->slots[ht_find(s, pid)].e;
    ssize_t n = e ? read_kept(s, e, rel, buf, cap) : -EBADF;
    return n != -EBADF ? n : open_read(s, rel, buf, cap, fd);
}

/* Samples one numeric directory entry. Only out-of-memory is returned. */
static int scan_one(wc_proc_scanner *s, const char *name, size_t name_len, int32_t pid,
                    wc_proc_snapshot *snap)
{
    char buf[SCAN_STAT_BUF];
    int fd = -1;
    ssize_t n = read_pid_stat(s, name, name_len, pid, buf, sizeof buf, &fd);
    if (n == -ENOTDIR)
        return 0; /* a numeric file, not a process directory (fixture trees) */
    if (n == 0 || (n < 0 && is_vanished((int)-n))) {
        snap->vanished++;
        return 0;
    }
    if (n < 0) {
        wc_error e = {{0}};
        if (n == -EFBIG)
            wc_error_set(&e, (int)n, "%s/%s/stat: longer than %zu bytes: refused, never parsed "
                         "cut (a real stat line is shorter)", s->root, name, sizeof buf - 1);
        else
            wc_error_set(&e, (int)n, "%s/%s/stat: %s", s->root, name, strerror((int)-n));
        count_error(snap, &e);
        return 0;
    }
    wc_pidstat ps;
    if (wc_pidstat_parse(buf, (size_t)n, NULL, &ps, NULL) != 0) {
        if (fd >= 0)
            close(fd);
        malformed(s, name, buf, (size_t)n, snap);
        return 0;
    }
    int rc = account(s, pid, &ps, snap);
    adopt_fd(s, pid, fd);
    return rc;
}

/* The pid of a /proc entry name, or 0 when it is not a process directory. */
static int32_t entry_pid(const struct dirent *de, size_t *name_len)
{
    if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
        return 0;
    int64_t v = 0;
    size_t i = 0;
    if (de->d_name[0] == '0')
        return 0; /* the kernel never writes leading zeros: "0100" is not pid 100 */
    for (; de->d_name[i]; i++) {
        char c = de->d_name[i];
        if (c < '0' || c > '9' || i >= 10)
            return 0;
        v = v * 10 + (c - '0');
    }
    *name_len = i;
    return (i > 0 && v <= INT32_MAX) ? (int32_t)v : 0;
}

/* Retires every identity this scan did not see. */
static int sweep(wc_proc_scanner *s, wc_proc_snapshot *snap)
{
    for (size_t i = 0; i < s->live.n;) {
        scan_entry *e = s->live.v[i];
        if (e->seen_gen == s->gen) {
            i++;
            continue;
        }
        size_t slot = ht_find(s, e->id.pid);
        if (s->slots[slot].e == e)
            ht_delete_at(s, slot);
        if (retire(s, e, snap) != 0)
            return -ENOMEM;
    }
    return 0;
}

static void free_dying(wc_proc_scanner *s)
{
    for (size_t i = 0; i < s->dying.n; i++)
        free_entry(s, s->dying.v[i]);
    s->dying.n = 0;
}

static void reset_snapshot(wc_proc_snapshot *snap)
{
    snap->count = 0;
    snap->vanished = 0;
    snap->errors = 0;
    snap->first_error.msg[0] = '\0';
    snap->gone_count = 0;
}

/* How many stat files may stay open: RLIMIT_NOFILE's soft limit raised to
 * its hard limit, less SCAN_FD_RESERVE for the rest of the process; 0 (every
 * stat opened, read and closed per scan, as before) when that leaves none.
 * Whether the root is a real procfs decides how a kept file is checked.
 * Descriptors then go above FD_SETSIZE: nothing in wattcal uses select(2)
 * (libmicrohttpd runs with MHD_USE_AUTO, epoll; libcurl polls). */
static void set_fd_budget(wc_proc_scanner *s)
{
    struct rlimit rl = {0, 0};
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        rl.rlim_cur = 0;
    else if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    rlim_t soft = rl.rlim_cur;
    s->fd_budget = soft != RLIM_INFINITY && soft <= 2 * SCAN_FD_RESERVE
                       ? 0 : (size_t)(soft == RLIM_INFINITY ? 1u << 20 : soft - SCAN_FD_RESERVE);
    struct statfs fs;
    s->real_proc = fstatfs(s->dfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC_;
}

/* ---- public API ----------------------------------------------------------- */

wc_proc_scanner *wc_proc_scanner_new(const char *procfs_root, wc_error *err)
{
    wc_proc_scanner *s = calloc(1, sizeof *s);
    if (!s) {
        wc_error_set(err, -ENOMEM, "process scanner: out of memory");
        return NULL;
    }
    s->root = strdup(procfs_root);
    s->dir = s->root ? opendir(procfs_root) : NULL;
    if (!s->dir) {
        int e = s->root ? errno : ENOMEM;
        wc_error_set(err, -e, "%s: cannot list processes: %s", procfs_root, strerror(e));
        free(s->root);
        free(s);
        return NULL;
    }
    s->dfd = dirfd(s->dir);
    set_fd_budget(s);
    s->pool = wc_strpool_new();
    if (!s->pool || ht_alloc(s, 10) != 0) {
        wc_error_set(err, -ENOMEM, "process scanner: out of memory");
        wc_proc_scanner_free(s);
        return NULL;
    }
    return s;
}

int wc_proc_scan(wc_proc_scanner *s, wc_proc_snapshot *snap, wc_error *err)
{
    free_dying(s);
    s->gen++;
    reset_snapshot(snap);
    rewinddir(s->dir);
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(s->dir);
        if (!de) {
            if (errno != 0) {
                int e = errno;
                return wc_error_set(err, -e, "%s: readdir: %s", s->root, strerror(e));
            }
            break;
        }
        size_t name_len = 0;
        int32_t pid = entry_pid(de, &name_len);
        if (pid > 0 && scan_one(s, de->d_name, name_len, pid, snap) != 0)
            return wc_error_set(err, -ENOMEM, "%s: scan: out of memory", s->root);
    }
    if (sweep(s, snap) != 0)
        return wc_error_set(err, -ENOMEM, "%s: scan: out of memory", s->root);
    return 0;
}

void wc_proc_snapshot_free(wc_proc_snapshot *snap)
{
    if (!snap)
        return;
    free(snap->samples);
    free(snap->gone);
    memset(snap, 0, sizeof *snap);
}

void wc_proc_scanner_free(wc_proc_scanner *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->live.n; i++) {
        drop_fd(s, s->live.v[i]);
        free_entry(s, s->live.v[i]);
    }
    free_dying(s);
    free(s->live.v);
    free(s->dying.v);
    free(s->slots);
    wc_strpool_free(s->pool);
    if (s->dir)
        closedir(s->dir);
    free(s->root);
    free(s);
}

size_t wc_proc_scanner_kept_fds(const wc_proc_scanner *s, size_t *budget)
{
    if (budget)
        *budget = s->fd_budget;
    return s->fd_kept;
}
