/*
 * cmdline.h — /proc/<pid>/cmdline and the VM a hypervisor process runs, as
 * Kepler's internal/resource/vm.go detects it (kepler-model.md §3.4).
 *
 * The recorder reads a process's cmdline once, when the process is born
 * (proc_scan.c, beside exe and cgroup), below the configurable procfs root,
 * bounded (WC_CMDLINE_MAX) and non-blocking (common/wc_fs.h). Only the VM
 * identity is kept, not the command line (it may hold secrets).
 *
 * Detection, pattern by pattern, with the Kepler release that added it:
 *   bin/qemu-system-<word>  v0.10.0  hypervisor "kvm"
 *   libexec/qemu-kvm        v0.11.0  "kvm"
 *   bin/kvm (Proxmox)       v0.11.4  "kvm"
 *   qemu + -xen-domid       main     "xen" (earlier releases: "kvm")
 *   virtualbox/VBoxHeadless|VBoxSDL|VirtualBoxVM  main  "virtualbox"
 *   bin/vmware-vmx          main     "vmware"
 * matched against argv[0]'s basename or the args joined by ' ' (Kepler's
 * regexps; checked in that order, so a qemu match wins). VM id: kvm -uuid,
 * xen -xen-domid, virtualbox --startvm, vmware the .vmx file's basename;
 * else the qemu -name value (guest= sub-option), virtualbox --comment; else
 * the first 16 hex digits of the joined args (Kepler's generateVMID: the
 * first 8 bytes, so nameless QEMUs of one binary path collide). Name: -name
 * / --comment / .vmx basename, else "<hypervisor>-<first 8 of id>".
 */
#ifndef WC_CMDLINE_H
#define WC_CMDLINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Bytes of /proc/<pid>/cmdline read at most; a longer one is cut (its last
 * argument may be partial) and the identity flagged truncated. libvirt's
 * QEMU lines run to a few KiB and put -name and -uuid first. */
#define WC_CMDLINE_MAX 16384

/* The first Kepler release whose detection sees a process as a VM (ordered:
 * a model of release R sees the VMs whose since <= R). */
typedef enum wc_vm_since {
    WC_VM_NONE = 0,        /* not a VM process */
    WC_VM_SINCE_0100,      /* v0.10.0: bin/qemu-system-* */
    WC_VM_SINCE_0110,      /* v0.11.0: libexec/qemu-kvm */
    WC_VM_SINCE_0114,      /* v0.11.4: bin/kvm */
    WC_VM_SINCE_MAIN       /* main (13944a69): VirtualBox, VMware */
} wc_vm_since;

/* The VM identity of one process; all "" (since WC_VM_NONE) for any other. */
typedef struct wc_vm_info {
    wc_vm_since since;
    char hypervisor[16];   /* "kvm", "xen", "virtualbox", "vmware" (Kepler's labels, main) */
    char id[128];          /* Kepler's vm_id label (cut to 127 bytes) */
    char name[128];        /* Kepler's vm_name label (cut to 127 bytes) */
    int truncated;         /* 1 when the cmdline was longer than WC_CMDLINE_MAX */
} wc_vm_info;

/* Detects the VM of the NUL-separated args [args, args+len) (a trailing NUL
 * optional; len 0 = a kernel thread: not a VM). Never fails. */
void wc_vm_detect(const char *args, size_t len, wc_vm_info *out);

/* Reads <procfs_root>/<pid>/cmdline (at most WC_CMDLINE_MAX bytes) and
 * detects its VM into out (zeroed first). Returns 0; -errno with err naming
 * the file (-ENOENT/-ESRCH: the process is gone); out is then "not a VM". */
int wc_vm_read(const char *procfs_root, int32_t pid, wc_vm_info *out, wc_error *err);

/* "v0.10.0", "v0.11.0", "v0.11.4", "main"; "" for WC_VM_NONE (the store's
 * process.vm_since). */
const char *wc_vm_since_name(wc_vm_since s);
/* The inverse; "" and NULL give WC_VM_NONE; -EINVAL for anything else. */
int wc_vm_since_parse(const char *name, wc_vm_since *out);

#endif
