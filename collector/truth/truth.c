/*
 * truth.c — what every ground-truth source shares (see truth.h): spec
 * dispatch through the table of sources (truth_table.c; no source is named
 * here), poll timestamps, staleness, and reading secrets from a file or the
 * environment (never from argv).
 */
#include "collector/truth/truth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/truth/truth_table.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"

const char *wc_truth_status_name(wc_truth_status s)
{
    switch (s) {
    case WC_TRUTH_OK: return "ok";
    case WC_TRUTH_STALE: return "stale";
    case WC_TRUTH_UNAVAILABLE: return "unavailable";
    case WC_TRUTH_ERROR: return "error";
    }
    return "error";
}

void wc_truth_config_defaults(wc_truth_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->connect_timeout_ns = 3 * WC_NS_PER_S;
    cfg->timeout_ns = 10 * WC_NS_PER_S;
    cfg->poll_interval_ns = WC_NS_PER_S;
    cfg->sysfs_root = "/sys";
    cfg->ipmitool = "ipmitool";
}

int wc_truth_open(const char *spec, const wc_truth_config *cfg, wc_truth_source *s,
                  wc_error *err)
{
    memset(s, 0, sizeof *s);
    if (strlen(spec) >= sizeof s->spec)
        return wc_error_set(err, -EINVAL, "--truth %.64s...: too long", spec);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->cfg = *cfg;
    s->poll_interval_ns = cfg->poll_interval_ns;
    s->provenance = WC_PROV_GROUND_TRUTH;
    const char *rest = "";
    const wc_truth_kind *kind = wc_truth_kind_find(spec, &rest);
    if (!kind || !kind->init) {
        char forms[256];
        return wc_error_set(err, -EINVAL, "--truth %s: unknown source (%s)", spec,
                            wc_truth_summaries(forms, sizeof forms));
    }
    int rc = kind->init(s, rest, err);
    if (rc)
        return rc;
    return s->ops->open ? s->ops->open(s, err) : 0;
}

static void sample_init(wc_truth_sample *t)
{
    memset(t, 0, sizeof *t);
    t->watts = t->min_watts = t->max_watts = t->avg_watts = NAN;
}

int wc_truth_poll(wc_truth_source *s, wc_truth_sample *out)
{
    sample_init(out);
    int rc = s->ops->poll(s, out);
    out->poll_mono_ns = wc_mono_ns();
    out->poll_wall_ns = wc_wall_ns();
    if (rc && out->status == WC_TRUTH_OK)
        out->status = WC_TRUTH_ERROR;
    if (out->status == WC_TRUTH_OK && !isfinite(out->watts)) {
        out->status = WC_TRUTH_UNAVAILABLE;
        if (!out->error[0])
            snprintf(out->error, sizeof out->error, "no numeric reading");
    }
    /* A repeated value carrying the same device timestamp was not refreshed. */
    if (out->status == WC_TRUTH_OK && s->have_last && s->last.status != WC_TRUTH_ERROR &&
        out->device_ts_ns != 0 && out->device_ts_ns == s->last.device_ts_ns &&
        out->watts == s->last.watts)
        out->status = WC_TRUTH_STALE;
    s->last = *out;
    s->have_last = 1;
    return rc;
}

void wc_truth_close(wc_truth_source *s)
{
    if (s->ops && s->ops->close)
        s->ops->close(s);
    s->ops = NULL;
}

int wc_truth_secret(const wc_truth_config *cfg, const char *env_name, char *buf, size_t cap,
                    wc_error *err)
{
    if (cfg->password_file && *cfg->password_file) {
        int rc = wc_read_line(cfg->password_file, buf, cap, err);
        return rc;
    }
    const char *v = env_name ? getenv(env_name) : NULL;
    if (!v)
        return wc_error_set(err, -ENOENT,
                            "no password: set %s in the environment or pass "
                            "--truth-password-file FILE (never on the command line)",
                            env_name ? env_name : "the password variable");
    if (strlen(v) >= cap)
        return wc_error_set(err, -EINVAL, "%s: too long", env_name);
    snprintf(buf, cap, "%s", v);
    return 0;
}
