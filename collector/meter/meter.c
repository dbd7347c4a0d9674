/*
 * meter.c — the generic half of the meter interface (see meter.h): the
 * provenance names printed beside every figure and NULL-safe wrappers around
 * a meter's ops. The sources themselves live in meter_rapl.c and meter_sim.c.
 */
#include "collector/meter/meter.h"

#include <errno.h>

const char *wc_provenance_name(wc_provenance p)
{
    switch (p) {
    case WC_PROV_MEASURED:
        return "measured";
    case WC_PROV_ESTIMATED:
        return "estimated";
    case WC_PROV_SIMULATED:
        return "simulated";
    case WC_PROV_GROUND_TRUTH:
        return "ground truth";
    }
    return "unknown";
}

int wc_meter_discover(wc_meter *m, wc_error *err)
{
    if (!m || !m->ops || !m->ops->discover)
        return wc_error_set(err, -EINVAL, "meter discover: meter not initialised");
    return m->ops->discover(m, err);
}

int wc_meter_read(wc_meter *m, wc_reading *out, wc_error *err)
{
    if (!m || !m->ops || !m->ops->read)
        return wc_error_set(err, -EINVAL, "meter read: meter not initialised");
    if (!out && m->nzones > 0)
        return wc_error_set(err, -EINVAL, "meter read (%s): no output array", m->ops->kind);
    return m->ops->read(m, out, err);
}

void wc_meter_close(wc_meter *m)
{
    if (!m || !m->ops)
        return;
    if (m->ops->close)
        m->ops->close(m);
    /* Whatever the source left behind is no longer valid: a second close, or
     * a read after close, is then a harmless no-op / -EINVAL. */
    m->ops = NULL;
    m->zones = NULL;
    m->nzones = 0;
    m->priv = NULL;
}
