/*
 * exporter_table.c — the exporters `--exporter SPEC` can name (see
 * exporter_table.h): one line per exporter kind; the spec check that keeps
 * credentials out of the run; the provenance text of an exporter's numbers.
 */
#include "collector/exporter/exporter_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/wc_text.h"

static const wc_exporter_kind KINDS[] = {
    {"kepler", "kepler:URL",
     "Kepler's own /metrics (e.g. http://HOST:28282/metrics), v0.10+ or legacy names: "
     "the numbers on the dashboards",
     wc_kepler_classify},
};

#define NKINDS (sizeof KINDS / sizeof KINDS[0])

/* Longest spec accepted (the exporter row keeps 512 bytes). */
#define SPEC_MAX 480

const wc_exporter_kind *wc_exporter_kind_find(const char *spec, const char **rest)
{
    for (size_t i = 0; spec && i < NKINDS; i++) {
        size_t len = strlen(KINDS[i].prefix);
        if (strncmp(spec, KINDS[i].prefix, len) == 0 && spec[len] == ':') {
            if (rest)
                *rest = spec + len + 1;
            return &KINDS[i];
        }
    }
    return NULL;
}

const wc_exporter_kind *wc_exporter_kinds(size_t *n)
{
    if (n)
        *n = NKINDS;
    return KINDS;
}

const char *wc_exporter_summaries(char *buf, size_t cap)
{
    size_t used = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < NKINDS; i++)
        wc_append(buf, cap, &used, "%s%s", i ? ", " : "", KINDS[i].summary);
    return buf;
}

/* 1 when the URL's query has a parameter named like a credential (token,
 * access_token, api_key, apikey, password, passwd, secret; any case). */
static int credential_query(const char *url)
{
    static const char *const NAMES[] = {"token", "access_token", "api_key", "apikey",
                                        "password", "passwd", "secret"};
    const char *q = strchr(url, '?');
    while (q && *q) {
        q++;
        size_t n = strcspn(q, "=&#");
        for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
            if (n == strlen(NAMES[i]) && strncasecmp(q, NAMES[i], n) == 0)
                return 1;
        q = strchr(q, '&');
    }
    return 0;
}

/* The URL's authority (after "scheme://", up to the path) holds no '@' and
 * its query no credential: checked first, so no later message echoes a
 * secret. */
static int check_url(const char *spec, const char *url, wc_error *err)
{
    const char *sep = strstr(url, "://");
    const char *authority = sep ? sep + 3 : url;
    size_t auth = strcspn(authority, "/?#");
    if (memchr(authority, '@', auth))
        return wc_error_set(err, -EINVAL,
                            "--exporter: refused a URL with credentials in it (user:password@): "
                            "the spec is stored with the run and its command line. Give a bearer "
                            "token with --exporter-token-file FILE or WATTCAL_EXPORTER_TOKEN, or "
                            "basic auth with WATTCAL_EXPORTER_USER and WATTCAL_EXPORTER_PASSWORD "
                            "in the environment");
    if (credential_query(url))
        return wc_error_set(err, -EINVAL,
                            "--exporter: refused a URL with a credential in its query (token=, "
                            "access_token=, api_key=, password=...): the spec is stored with the "
                            "run and its command line. Give a bearer token with "
                            "--exporter-token-file FILE or WATTCAL_EXPORTER_TOKEN");
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return wc_error_set(err, -EINVAL, "--exporter %s: the URL must start with http:// or "
                            "https:// (e.g. kepler:http://HOST:28282/metrics)", spec);
    if (auth == 0 || authority[0] == ':')
        return wc_error_set(err, -EINVAL, "--exporter %s: the URL names no host", spec);
    if (wc_url_authority_len(authority) != auth)
        return wc_error_set(err, -EINVAL, "--exporter %s: the URL's HOST[:PORT] is malformed "
                            "(a name, an IPv4 address or a [bracketed IPv6] literal, then "
                            ":PORT in 1..65535)", spec);
    return 0;
}

int wc_exporter_check_spec(const char *spec, wc_error *err)
{
    const char *url = NULL;
    if (!spec || !*spec)
        return wc_error_set(err, -EINVAL, "--exporter: empty spec");
    if (!wc_exporter_kind_find(spec, &url)) {
        char kinds[128];
        char shown[64]; /* the kind alone: the rest may hold a password */
        wc_copy_trunc(shown, sizeof shown, spec);
        shown[strcspn(shown, ":")] = '\0';
        return wc_error_set(err, -EINVAL, "--exporter %s:...: unknown exporter kind (one of: %s)",
                            shown, wc_exporter_summaries(kinds, sizeof kinds));
    }
    int rc = check_url(spec, url, err);
    if (!rc && strlen(spec) > SPEC_MAX)
        rc = wc_error_set(err, -EINVAL, "--exporter: spec longer than %d bytes", SPEC_MAX);
    return rc;
}

const char *wc_exporter_provenance(const char *kind, const char *version, const char *revision,
                                   const char *power_source, char *buf, size_t cap)
{
    const char *ps = power_source && *power_source ? power_source : "unknown";
    if (version && strncmp(version, "replay", 6) == 0)
        /* a replay measures nothing: its paths can only say the replayed run was measured */
        wc_textf(buf, cap, "replay of %s rows (%s)",
                 revision && *revision ? revision : "a wattcal run's",
                 strcmp(ps, "measured") ? ps : "replayed; paths of a measured run");
    else if (version && *version)
        wc_textf(buf, cap, "exporter %s %s (%s)", kind, version, ps);
    else
        wc_textf(buf, cap, "exporter %s, version unknown (%s)", kind, ps);
    return buf;
}
