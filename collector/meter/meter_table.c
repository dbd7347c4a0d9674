/*
 * meter_table.c — the meters `wattcal record --meter` can create (see
 * meter_table.h): one line per meter, each with a small adapter from the
 * common wc_meter_env to that meter's own init.
 */
#include "collector/meter/meter_table.h"

#include <string.h>

#include "collector/meter/meter_rapl.h"
#include "collector/meter/meter_sim.h"
#include "common/wc_text.h"

static int open_rapl(wc_meter *m, const wc_meter_env *env, wc_error *err)
{
    return wc_meter_rapl_init(m, env->sysfs_root, err);
}

static int open_sim(wc_meter *m, const wc_meter_env *env, wc_error *err)
{
    return wc_meter_sim_init(m, env->procfs_root, env->sim, err);
}

static const wc_meter_kind KINDS[] = {
    {"rapl", open_rapl, "RAPL through powercap (<sysfs>/class/powercap), per socket: measured"},
    {"sim", open_sim, "a SIMULATED node driven by this machine's /proc/stat, for machines "
                      "without a meter"},
};

#define NKINDS (sizeof KINDS / sizeof KINDS[0])

const wc_meter_kind *wc_meter_find(const char *name)
{
    for (size_t i = 0; name && i < NKINDS; i++)
        if (strcmp(KINDS[i].name, name) == 0)
            return &KINDS[i];
    return NULL;
}

const wc_meter_kind *wc_meter_kinds(size_t *n)
{
    if (n)
        *n = NKINDS;
    return KINDS;
}

const char *wc_meter_names(char *buf, size_t cap)
{
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < NKINDS; i++)
        wc_append(buf, cap, &used, "%s%s", i == 0 ? "" : i + 1 == NKINDS ? " or " : ", ",
                  KINDS[i].name);
    return buf;
}
