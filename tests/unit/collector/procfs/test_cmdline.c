/*
 * test_cmdline.c — /proc/<pid>/cmdline and Kepler's VM detection
 * (collector/procfs/cmdline.h; internal/resource/vm.go at v0.10.0, v0.11.0,
 * v0.11.4 and main 13944a69): the fixture tree tests/fixtures/procfs/cmdline
 * (its README lists the cases) read through the procfs root, and argument
 * lists in memory for the patterns only main knows.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "collector/procfs/cmdline.h"
#include "tests/unit/support/test_support.h"

static wc_vm_info read_pid(int32_t pid)
{
    wc_vm_info vm;
    wc_error err = {{0}};
    cr_assert_eq(wc_vm_read(wc_own_fixture("procfs/cmdline"), pid, &vm, &err), 0, "%s",
                 err.msg);
    return vm;
}

/* Detects a literal NUL-separated list (sizeof includes the final NUL). */
#define DETECT(lit, vm) wc_vm_detect(lit, sizeof lit, &(vm))

Test(cmdline, libvirt_qemu_uuid_and_guest_name)
{
    wc_vm_info vm = read_pid(201);
    cr_expect_eq(vm.since, WC_VM_SINCE_0100);
    cr_expect_str_eq(vm.hypervisor, "kvm");
    cr_expect_str_eq(vm.id, "df12672f-fedb-4f6f-9d51-0166868835fb");
    cr_expect_str_eq(vm.name, "web01");
    cr_expect_eq(vm.truncated, 0);
}

Test(cmdline, qemu_kvm_is_v0_11_0_and_named_by_name)
{
    wc_vm_info vm = read_pid(202);
    cr_expect_eq(vm.since, WC_VM_SINCE_0110);
    cr_expect_str_eq(vm.id, "db02");
    cr_expect_str_eq(vm.name, "db02");
}

Test(cmdline, kernel_thread_and_plain_process_are_no_vm)
{
    wc_vm_info vm = read_pid(203);
    cr_expect_eq(vm.since, WC_VM_NONE);
    cr_expect_str_eq(vm.id, "");
    vm = read_pid(204);
    cr_expect_eq(vm.since, WC_VM_NONE);
    cr_expect_str_eq(vm.hypervisor, "");
}

Test(cmdline, truncated_cmdline_still_yields_the_vm)
{
    wc_vm_info vm = read_pid(205);
    cr_expect_eq(vm.truncated, 1);
    cr_expect_str_eq(vm.id, "11111111-2222-3333-4444-555555555555");
    cr_expect_str_eq(vm.name, "big");
}

Test(cmdline, xen_device_model_by_domid)
{
    wc_vm_info vm = read_pid(206);
    cr_expect_str_eq(vm.hypervisor, "xen");
    cr_expect_eq(vm.since, WC_VM_SINCE_0100); /* earlier releases: a kvm VM */
    cr_expect_str_eq(vm.id, "7");
    cr_expect_str_eq(vm.name, "xdom");
}

Test(cmdline, vanished_process_is_enoent)
{
    wc_vm_info vm;
    wc_error err = {{0}};
    cr_expect_eq(wc_vm_read(wc_own_fixture("procfs/cmdline"), 99999, &vm, &err), -ENOENT);
    cr_expect_eq(vm.since, WC_VM_NONE);
    cr_expect(strstr(err.msg, "99999/cmdline") != NULL, "%s", err.msg);
}

Test(cmdline, nameless_qemu_gets_kepler_generated_id)
{
    wc_vm_info vm;
    DETECT("/usr/bin/qemu-system-aarch64\0-m\0" "256", vm);
    cr_expect_str_eq(vm.id, "2f7573722f62696e"); /* hex of "/usr/bin": collides */
    cr_expect_str_eq(vm.name, "kvm-2f757372");
}

Test(cmdline, proxmox_kvm_and_name_equals)
{
    wc_vm_info vm;
    DETECT("/usr/bin/kvm\0-id\0" "100\0-name=pve-vm", vm);
    cr_expect_eq(vm.since, WC_VM_SINCE_0114);
    cr_expect_str_eq(vm.id, "pve-vm");
    cr_expect_str_eq(vm.name, "pve-vm");
    DETECT("/usr/bin/qemu-system-\0-name\0x", vm); /* \w+ needs a word character */
    cr_expect_eq(vm.since, WC_VM_NONE);
}

Test(cmdline, virtualbox_and_vmware_are_main_only)
{
    wc_vm_info vm;
    DETECT("/usr/lib/virtualbox/VBoxHeadless\0--comment\0win10\0--startvm\0"
           "0b7c6f1e-0000-4000-8000-000000000001",
           vm);
    cr_expect_eq(vm.since, WC_VM_SINCE_MAIN);
    cr_expect_str_eq(vm.hypervisor, "virtualbox");
    cr_expect_str_eq(vm.id, "0b7c6f1e-0000-4000-8000-000000000001");
    cr_expect_str_eq(vm.name, "win10");
    DETECT("/usr/lib/vmware/bin/vmware-vmx\0-s\0x=1\0/vmfs/volumes/ds1/app3/app3.vmx", vm);
    cr_expect_str_eq(vm.hypervisor, "vmware");
    cr_expect_str_eq(vm.id, "app3");
    cr_expect_str_eq(vm.name, "app3");
}

Test(cmdline, since_names_round_trip)
{
    for (int s = WC_VM_NONE; s <= WC_VM_SINCE_MAIN; s++) {
        wc_vm_since back;
        cr_expect_eq(wc_vm_since_parse(wc_vm_since_name((wc_vm_since)s), &back), 0);
        cr_expect_eq(back, (wc_vm_since)s);
    }
    wc_vm_since x;
    cr_expect_eq(wc_vm_since_parse("v9", &x), -EINVAL);
}
