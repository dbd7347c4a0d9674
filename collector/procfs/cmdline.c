/*
 * cmdline.c — /proc/<pid>/cmdline read once at a process's birth and the VM
 * identity Kepler's internal/resource/vm.go derives from it (cmdline.h has
 * the rules and the releases that added them). The args are walked in place
 * (NUL-separated); the patterns are Kepler's regexps as substring tests on
 * the args joined by ' ' (none can match argv[0]'s basename: each holds '/').
 */
#include "collector/procfs/cmdline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/wc_fs.h"

/* The args as procfs' CmdLine() gives them to Kepler: trailing NULs trimmed,
 * then split at every NUL. */
typedef struct argv_view {
    const char *p;
    size_t len;
} argv_view;

/* Next arg from *pos (an offset into v); 0 at the end. */
static int next_arg(const argv_view *v, size_t *pos, const char **arg, size_t *n)
{
    if (*pos > v->len || v->len == 0)
        return 0;
    const char *s = v->p + *pos;
    const char *end = memchr(s, '\0', v->len - *pos);
    *n = end ? (size_t)(end - s) : v->len - *pos;
    *arg = s;
    *pos += *n + 1;
    return 1;
}

static int arg_is(const char *a, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(a, lit, n) == 0;
}

/* Copies [s, s+n) into out (cap bytes), cut to fit. */
static void put(char *out, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* hasXenDomID: some arg equals flag. */
static int has_arg(const argv_view *v, const char *flag)
{
    size_t pos = 0, n;
    const char *a;
    while (next_arg(v, &pos, &a, &n))
        if (arg_is(a, n, flag))
            return 1;
    return 0;
}

/* The value after the arg equal to flag (Kepler: arg == flag && i+1 < len);
 * with dashes, every leading '-' of an arg is ignored (VirtualBox's
 * strings.TrimLeft(arg, "-")). 1 when found. */
static int value_after(const argv_view *v, const char *flag, int dashes, const char **val,
                       size_t *vn)
{
    size_t pos = 0, n;
    const char *a;
    while (next_arg(v, &pos, &a, &n)) {
        while (dashes && n > 0 && *a == '-')
            a++, n--;
        if (arg_is(a, n, flag))
            return next_arg(v, &pos, val, vn);
    }
    return 0;
}

/* qemuVMNameFromCmdLine: "-name V" (its guest= part when V holds "guest=")
 * or "-name=V", the first of either. */
static int qemu_name(const argv_view *v, char *out, size_t cap)
{
    size_t pos = 0, n, vn;
    const char *a, *val;
    while (next_arg(v, &pos, &a, &n)) {
        if (arg_is(a, n, "-name") && next_arg(v, &(size_t){pos}, &val, &vn)) {
            const char *g = memmem(val, vn, "guest=", 6);
            for (const char *part = val; g && part <= val + vn;) {
                const char *comma = memchr(part, ',', (size_t)(val + vn - part));
                size_t pn = comma ? (size_t)(comma - part) : (size_t)(val + vn - part);
                if (pn >= 6 && memcmp(part, "guest=", 6) == 0)
                    return put(out, cap, part + 6, pn - 6), 1;
                part += pn + 1;
            }
            return put(out, cap, val, vn), 1;
        }
        if (n >= 6 && memcmp(a, "-name=", 6) == 0)
            return put(out, cap, a + 6, n - 6), 1;
    }
    return 0;
}

/* The basename without ".vmx" of the first arg ending in ".vmx". */
static int vmx_name(const argv_view *v, char *out, size_t cap)
{
    size_t pos = 0, n;
    const char *a;
    while (next_arg(v, &pos, &a, &n)) {
        if (n < 4 || memcmp(a + n - 4, ".vmx", 4) != 0)
            continue;
        const char *b = a;
        for (size_t i = 0; i < n; i++)
            if (a[i] == '/')
                b = a + i + 1;
        return put(out, cap, b, (size_t)(a + n - 4 - b)), 1;
    }
    return 0;
}

/* Kepler's qemuPattern alternatives: the release of the first that matches
 * the joined args (bin/qemu-system-\w+ | libexec/qemu-kvm | bin/kvm). */
static wc_vm_since qemu_since(const char *joined)
{
    for (const char *p = joined; (p = strstr(p, "bin/qemu-system-")); p++) {
        char c = p[16];
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            c == '_')
            return WC_VM_SINCE_0100;
    }
    if (strstr(joined, "libexec/qemu-kvm"))
        return WC_VM_SINCE_0110;
    if (strstr(joined, "bin/kvm"))
        return WC_VM_SINCE_0114;
    return WC_VM_NONE;
}

/* Hypervisor and release of the joined args (vmProcessPatterns in order). */
static wc_vm_since classify(const argv_view *v, const char *joined, const char **hyp)
{
    wc_vm_since s = qemu_since(joined);
    if (s != WC_VM_NONE) {
        *hyp = has_arg(v, "-xen-domid") ? "xen" : "kvm";
        return s;
    }
    *hyp = strstr(joined, "virtualbox/VBoxHeadless") || strstr(joined, "virtualbox/VBoxSDL") ||
                   strstr(joined, "virtualbox/VirtualBoxVM")
               ? "virtualbox"
               : strstr(joined, "bin/vmware-vmx") ? "vmware" : NULL;
    return *hyp ? WC_VM_SINCE_MAIN : WC_VM_NONE;
}

/* extractVMID and vmNameFromCmdLine of one hypervisor; "" when absent. */
static void id_and_name(const argv_view *v, const char *hyp, wc_vm_info *out)
{
    const char *val;
    size_t vn;
    int named;
    if (strcmp(hyp, "virtualbox") == 0) {
        named = value_after(v, "comment", 1, &val, &vn);
        if (named)
            put(out->name, sizeof out->name, val, vn);
        if (value_after(v, "startvm", 1, &val, &vn))
            put(out->id, sizeof out->id, val, vn);
        else
            memcpy(out->id, out->name, sizeof out->id);
        return;
    }
    if (strcmp(hyp, "vmware") == 0) {
        vmx_name(v, out->name, sizeof out->name);
        memcpy(out->id, out->name, sizeof out->id);
        return;
    }
    qemu_name(v, out->name, sizeof out->name);
    const char *flag = strcmp(hyp, "xen") == 0 ? "-xen-domid" : "-uuid";
    if (value_after(v, flag, 0, &val, &vn))
        put(out->id, sizeof out->id, val, vn);
    else
        memcpy(out->id, out->name, sizeof out->id);
}

void wc_vm_detect(const char *args, size_t len, wc_vm_info *out)
{
    memset(out, 0, sizeof *out);
    while (len > 0 && args[len - 1] == '\0')
        len--;
    if (len == 0)
        return;
    char joined[WC_CMDLINE_MAX];
    size_t jn = len < sizeof joined ? len : sizeof joined - 1;
    for (size_t i = 0; i < jn; i++)
        joined[i] = args[i] ? args[i] : ' ';
    joined[jn] = '\0';
    argv_view v = {args, len};
    const char *hyp = NULL;
    out->since = classify(&v, joined, &hyp);
    if (out->since == WC_VM_NONE)
        return;
    put(out->hypervisor, sizeof out->hypervisor, hyp, strlen(hyp));
    id_and_name(&v, hyp, out);
    if (!out->id[0]) /* generateVMID: hex of the joined args, first 16 digits */
        for (size_t i = 0; i < 8 && i < jn; i++)
            snprintf(out->id + 2 * i, 3, "%02x", (unsigned char)joined[i]);
    if (!out->name[0])
        snprintf(out->name, sizeof out->name, "%s-%.8s", out->hypervisor, out->id);
}

int wc_vm_read(const char *procfs_root, int32_t pid, wc_vm_info *out, wc_error *err)
{
    char path[4096], buf[WC_CMDLINE_MAX + 1];
    memset(out, 0, sizeof *out);
    if (wc_path(path, sizeof path, procfs_root, "%d/cmdline", (int)pid) != 0)
        return wc_error_set(err, -ENAMETOOLONG, "%s/%d/cmdline: path too long", procfs_root,
                            (int)pid);
    size_t len = 0;
    int rc = wc_read_text(path, buf, sizeof buf, &len, err);
    int truncated = rc == -EFBIG;
    if (rc && !truncated)
        return rc;
    wc_vm_detect(buf, len, out);
    out->truncated = truncated;
    return 0;
}

static const char *const SINCE[] = {"", "v0.10.0", "v0.11.0", "v0.11.4", "main"};

const char *wc_vm_since_name(wc_vm_since s)
{
    return (unsigned)s < sizeof SINCE / sizeof SINCE[0] ? SINCE[s] : "";
}

int wc_vm_since_parse(const char *name, wc_vm_since *out)
{
    for (size_t i = 0; i < sizeof SINCE / sizeof SINCE[0]; i++)
        if (strcmp(name ? name : "", SINCE[i]) == 0) {
            *out = (wc_vm_since)i;
            return 0;
        }
    return -EINVAL;
}
