/*
 * fuzz_hwmon.c — hwmon trees (collector/meter/hwmon.c, wc_hwmon_scan_sysfs:
 * what `wattcal probe` lists). The input is a file tree (fuzz.h's "@path"
 * records below the sysfs root: "@class/hwmon/...", "@devices/...", `device`
 * links, FIFOs and enable files)
 * built in a memory-backed scratch directory for each input and removed
 * after. Contract (hwmon.h): the sensors are the chips' (counts add up, each
 * names a chip before it in order), named [a-z0-9:_]+, with a status 0 or
 * -errno and its reason; a voltage x current reading is their exact product
 * (an overflow is -ERANGE, never a wrapped value); nothing blocks on a FIFO.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/hwmon.h"
#include "tests/fuzz/fuzz.h"

static int clean_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == ':' || *s == '_'))
            return 0;
    return 1;
}

static void check_sensor(const wc_hwmon_scan *sc, size_t i)
{
    const wc_hwmon_sensor *s = &sc->sensors[i];
    FUZZ_CHECK(s->chip < sc->nchips && (i == 0 || s->chip >= sc->sensors[i - 1].chip),
               "sensor %zu of chip %zu", i, s->chip);
    FUZZ_CHECK(clean_name(s->name), "sensor %zu name '%s'", i, s->name);
    FUZZ_CHECK((int)s->kind == sc->chips[s->chip].tier, "sensor %zu kind %d, chip tier %d", i,
               s->kind, sc->chips[s->chip].tier);
    FUZZ_CHECK(s->status <= 0 && (s->status == 0 || s->error[0]), "sensor %zu status %d '%s'", i,
               s->status, s->error);
    if (s->status == 0 && s->kind == WC_HWMON_VOLTAGE_CURRENT) {
        uint64_t p = 0;
        FUZZ_CHECK(!__builtin_mul_overflow(s->voltage_mv, s->current_ma, &p) && p == s->power_uw,
                   "sensor %zu: %llu mV x %llu mA = %llu uW", i,
                   (unsigned long long)s->voltage_mv, (unsigned long long)s->current_ma,
                   (unsigned long long)s->power_uw);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/sys", fuzz_scratch());
    fuzz_build_tree(root, "", data, size);
    wc_hwmon_scan sc;
    wc_error err = {{0}};
    int rc = wc_hwmon_scan_sysfs(root, &sc, &err);
    if (rc) {
        FUZZ_CHECK(rc < 0 && err.msg[0], "rc %d '%s'", rc, err.msg);
    } else {
        size_t sum = 0, disabled = 0;
        for (size_t c = 0; c < sc.nchips; c++) {
            sum += sc.chips[c].nsensors;
            disabled += sc.chips[c].disabled;
            FUZZ_CHECK(sc.chips[c].tier >= -1 && sc.chips[c].tier <= WC_HWMON_VOLTAGE_CURRENT &&
                           (sc.chips[c].tier >= 0) == (sc.chips[c].nsensors > 0),
                       "chip %zu tier %d with %zu sensors", c, sc.chips[c].tier,
                       sc.chips[c].nsensors);
        }
        FUZZ_CHECK(sum == sc.nsensors && disabled == sc.disabled, "%zu sensors, chips say %zu",
                   sc.nsensors, sum);
        for (size_t i = 0; i < sc.nsensors; i++)
            check_sensor(&sc, i);
    }
    wc_hwmon_scan_free(&sc);
    fuzz_remove(root);
    return 0;
}
