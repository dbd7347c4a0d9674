/*
 * test_exporter_scrape.c — the live scraper (collector/exporter/
 * exporter_scrape.h) and the exporter table: the backoff, an answer parsed
 * into a scrape (values, what it teaches, series shared between scrapes, a
 * parse error keeping nothing), specs refused (credentials never echoed), the
 * provenance text; and, against a small HTTP server on 127.0.0.1 run by the
 * test, the bounded queue (a sampler that does not drain loses the oldest
 * scrapes, counted, and never blocks the scraper), the backoff on HTTP 500s,
 * a hanging exporter aborted at once by stop, and the bearer token sent.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collector/exporter/exporter_scrape.h"
#include "collector/exporter/exporter_table.h"
#include "common/wc_clock.h"
#include "tests/unit/support/test_support.h"

static const char BODY[] =
    "# HELP kepler_build_info A metric with a constant '1' value labeled with version information\n"
    "# TYPE kepler_build_info gauge\n"
    "kepler_build_info{arch=\"amd64\",revision=\"abc\",version=\"v0.11.4\"} 1\n"
    "# TYPE kepler_node_cpu_joules_total counter\n"
    "kepler_node_cpu_joules_total{node_name=\"n1\",path=\"/sys/class/powercap/intel-rapl:0\","
    "zone=\"package\"} 1234.5\n"
    "kepler_node_cpu_joules_total{node_name=\"n1\",path=\"aggregated-dram\",zone=\"dram\"} 99\n"
    "kepler_pod_cpu_joules_total{node_name=\"n1\",pod_id=\"u1\",pod_name=\"web\","
    "pod_namespace=\"prod\",state=\"running\",zone=\"package\"} NaN\n"
    "go_goroutines 42\n";

Test(exporter_scrape, backoff_doubles_to_a_minute)
{
    const int64_t s = WC_NS_PER_S;
    cr_assert_eq(wc_exporter_backoff_ns(s, 1), 2 * s);
    cr_assert_eq(wc_exporter_backoff_ns(s, 3), 8 * s);
    cr_assert_eq(wc_exporter_backoff_ns(s, 6), 60 * s, "64 s capped at 60");
    cr_assert_eq(wc_exporter_backoff_ns(5 * s, 4), 60 * s);
    cr_assert_eq(wc_exporter_backoff_ns(5 * s, 100), 60 * s);
    cr_assert_eq(wc_exporter_backoff_ns(0, 1), 2 * s, "no interval: 1 s");
}

Test(exporter_scrape, body_parsed_into_values_and_what_it_teaches)
{
    wc_scrape *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    cr_assert_eq(wc_scrape_parse_body(a, BODY, strlen(BODY), "text/plain; version=0.0.4",
                                      "http://h/metrics", wc_kepler_classify, NULL, 0), 0);
    cr_assert_eq(a->status, WC_SCRAPE_OK);
    cr_assert_eq(a->nvalues, 5);
    cr_assert_str_eq(a->values[1].series->metric, "kepler_node_cpu_joules_total");
    cr_assert_str_eq(a->values[1].series->labels,
                     "{node_name=\"n1\",path=\"/sys/class/powercap/intel-rapl:0\",zone=\"package\"}");
    cr_assert_eq(a->values[1].value, 1234.5);
    wc_kep_fact f;
    cr_assert(wc_scrape_series_fact(a->values[3].series, &f));
    cr_assert_eq(f.level, WC_KEP_POD);
    /* the packed meaning unpacks to exactly the classifier's */
    cr_assert_str_eq(f.key, "u1");
    cr_assert_str_eq(f.name, "web");
    cr_assert_str_eq(f.ns, "prod");
    cr_assert_str_eq(f.state, "running");
    cr_assert_str_eq(f.zone, "package");
    cr_assert_str_eq(f.node, "n1");
    cr_assert_eq(f.quantity, WC_KEP_JOULES);
    cr_assert(wc_scrape_series_fact(a->values[1].series, &f));
    cr_assert_str_eq(f.path, "/sys/class/powercap/intel-rapl:0");
    cr_assert_eq(f.level, WC_KEP_NODE);
    cr_assert_null(a->values[4].series->packed, "go_goroutines is not Kepler's");
    cr_assert_str_eq(a->learnt.version, "v0.11.4");
    cr_assert_str_eq(a->learnt.revision, "abc");
    cr_assert_str_eq(a->learnt.node, "n1");
    cr_assert_str_eq(a->learnt.layout, "v0.10+");
    cr_assert_str_eq(a->learnt.power_source, "measured");
    /* the next scrape shares the series (one made per distinct series) */
    cr_assert_eq(wc_scrape_parse_body(b, BODY, strlen(BODY), NULL, "http://h/metrics",
                                      wc_kepler_classify, a->set, 0), 0);
    cr_assert_eq(b->values[3].series, a->values[3].series);
    wc_scrape_free(a); /* b keeps the series alive */
    cr_assert(wc_scrape_series_fact(b->values[3].series, &f));
    cr_assert_str_eq(f.key, "u1");
    wc_scrape_free(b);
}

Test(exporter_scrape, empty_answer_is_said_not_ok)
{
    const char *bodies[] = {"", "# HELP kepler_build_info x\n# TYPE kepler_build_info gauge\n"};
    for (size_t i = 0; i < 2; i++) {
        wc_scrape *a = calloc(1, sizeof *a);
        cr_assert_eq(wc_scrape_parse_body(a, bodies[i], strlen(bodies[i]), NULL, "http://h/m",
                                          wc_kepler_classify, NULL, 0), 0);
        cr_assert_eq(a->status, WC_SCRAPE_PARSE_ERROR, "body %zu", i);
        cr_assert(strstr(a->error, "http://h/m: an empty answer") && strstr(a->error, "no sample"),
                  "%s", a->error);
        wc_scrape_free(a);
    }
}

Test(exporter_scrape, fake_meter_path_is_not_measured)
{
    static const char fake[] =
        "kepler_node_cpu_joules_total{path=\"/sys/class/powercap/intel-rapl/energy_package\","
        "zone=\"package\"} 5\n";
    wc_scrape *sc = calloc(1, sizeof *sc);
    cr_assert_eq(wc_scrape_parse_body(sc, fake, strlen(fake), NULL, "x", wc_kepler_classify,
                                      NULL, 0), 0);
    cr_assert_str_eq(sc->learnt.power_source, "not measured");
    wc_scrape_free(sc);
}

Test(exporter_scrape, parse_error_keeps_nothing_and_names_the_place)
{
    static const char cut[] = "kepler_build_info{version=\"v1\"} 1\nkepler_node_cpu_joules_total{zo";
    wc_scrape *sc = calloc(1, sizeof *sc);
    cr_assert_eq(wc_scrape_parse_body(sc, cut, strlen(cut), NULL, "http://h:1/metrics",
                                      wc_kepler_classify, NULL, 0), 0);
    cr_assert_eq(sc->status, WC_SCRAPE_PARSE_ERROR);
    cr_assert_eq(sc->nvalues, 0);
    cr_assert_null(sc->values);
    cr_assert_str_eq(sc->learnt.version, "", "nothing learnt from a broken body");
    cr_assert(strstr(sc->error, "http://h:1/metrics:2:") && strstr(sc->error, "1 samples before"),
              "%s", sc->error);
    cr_assert_str_eq(wc_scrape_status_name(sc->status), "parse_error");
    wc_scrape_free(sc);
}

Test(exporter_scrape, specs_checked_and_credentials_never_echoed)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_exporter_check_spec("kepler:http://10.0.0.1:28282/metrics", &err), 0, "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:https://node:8443/metrics", &err), 0);
    cr_assert_eq(wc_exporter_check_spec("kepler:http://admin:pw9@h/metrics", &err), -EINVAL);
    cr_assert(!strstr(err.msg, "pw9") && strstr(err.msg, "--exporter-token-file"), "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:ftp://u:pw9@h/", &err), -EINVAL);
    cr_assert(!strstr(err.msg, "pw9"), "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("prom:http://u:pw9@h/", &err), -EINVAL);
    cr_assert(!strstr(err.msg, "pw9") && strstr(err.msg, "kepler:URL"), "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:http:///metrics", &err), -EINVAL);
    cr_assert(strstr(err.msg, "no host"), "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:", &err), -EINVAL);
    /* HOST[:PORT] checked as the truth specs check it */
    cr_assert_eq(wc_exporter_check_spec("kepler:http://[::1:18911/good", &err), -EINVAL);
    cr_assert(strstr(err.msg, "HOST[:PORT] is malformed"), "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:http://127.0.0.1:99999/metrics", &err), -EINVAL);
    cr_assert(strstr(err.msg, "1..65535"), "%s", err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:http://h:0/metrics", &err), -EINVAL);
    cr_assert_eq(wc_exporter_check_spec("kepler:http://h:/metrics", &err), -EINVAL);
    cr_assert_eq(wc_exporter_check_spec("kepler:http://[::1]:18911/metrics", &err), 0, "%s",
                 err.msg);
    cr_assert_eq(wc_exporter_check_spec("kepler:http://node-1.example:65535/m?x=1", &err), 0,
                 "%s", err.msg);
    /* a credential in the query: refused, never echoed */
    const char *creds[] = {"kepler:http://h/metrics?token=abc9", "kepler:http://h/m?x=1&API_KEY=abc9",
                           "kepler:http://h/m?access_token=abc9", "kepler:http://h/m?password=abc9"};
    for (size_t i = 0; i < sizeof creds / sizeof *creds; i++) {
        cr_assert_eq(wc_exporter_check_spec(creds[i], &err), -EINVAL, "%s", creds[i]);
        cr_assert(!strstr(err.msg, "abc9") && strstr(err.msg, "credential in its query"), "%s",
                  err.msg);
    }
    const char *rest = NULL;
    cr_assert_not_null(wc_exporter_kind_find("kepler:http://h/", &rest));
    cr_assert_str_eq(rest, "http://h/");
}

Test(exporter_scrape, provenance_never_makes_a_replay_a_release)
{
    char b[96];
    cr_assert_str_eq(wc_exporter_provenance("kepler", "v0.11.4", "x", "measured", b, sizeof b),
                     "exporter kepler v0.11.4 (measured)");
    cr_assert_str_eq(wc_exporter_provenance("kepler", "", "", "", b, sizeof b),
                     "exporter kepler, version unknown (unknown)");
    cr_assert_str_eq(wc_exporter_provenance("kepler", "replay", "kepler-0.11", "not measured", b,
                                            sizeof b),
                     "replay of kepler-0.11 rows (not measured)");
    char w[160]; /* a replay is never a measurement, whatever its paths say */
    cr_assert_str_eq(wc_exporter_provenance("kepler", "replay", "kepler-0.11", "measured", w,
                                            sizeof w),
                     "replay of kepler-0.11 rows (replayed; paths of a measured run)");
}

/* ---- a tiny HTTP server on 127.0.0.1 -------------------------------------- */

typedef enum { SRV_OK, SRV_500, SRV_HANG } srv_mode;

typedef struct server {
    int fd, port;
    srv_mode mode;
    pthread_t thread;
    pthread_mutex_t lock;
    int requests;
    volatile int stop;
    char last_auth[128];
} server;

/* Reads the request head; keeps its Authorization line. */
static void read_head(server *s, int c)
{
    char buf[4096];
    size_t n = 0;
    while (n < sizeof buf - 1) {
        ssize_t r = read(c, buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        buf[n] = '\0';
        if (strstr(buf, "\r\n\r\n"))
            break;
    }
    buf[n] = '\0';
    const char *a = strstr(buf, "Authorization: ");
    pthread_mutex_lock(&s->lock);
    s->requests++;
    if (a)
        snprintf(s->last_auth, sizeof s->last_auth, "%.*s", (int)strcspn(a, "\r\n"), a);
    pthread_mutex_unlock(&s->lock);
}

static void answer(server *s, int c)
{
    char head[256];
    if (s->mode == SRV_HANG) {
        while (!s->stop)
            usleep(10000);
        return;
    }
    int ok = s->mode == SRV_OK;
    const char *body = ok ? BODY : "boom\n";
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     ok ? "200 OK" : "500 Internal Server Error", strlen(body));
    if (write(c, head, (size_t)n) < 0 || write(c, body, strlen(body)) < 0)
        return;
}

static void *serve(void *arg)
{
    server *s = arg;
    while (!s->stop) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            continue;
        read_head(s, c);
        answer(s, c);
        close(c);
    }
    return NULL;
}

static void server_start(server *s, srv_mode mode)
{
    /* a scrape cancelled by stop closes its connection while this server may
     * still write the answer: EPIPE, not a SIGPIPE that kills the test */
    signal(SIGPIPE, SIG_IGN);
    memset(s, 0, sizeof *s);
    s->mode = mode;
    pthread_mutex_init(&s->lock, NULL);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(s->fd, 16), 0);
    getsockname(s->fd, (struct sockaddr *)&a, &len);
    s->port = ntohs(a.sin_port);
    struct timeval tv = {.tv_sec = 0, .tv_usec = 100000}; /* accept wakes to see stop */
    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    pthread_create(&s->thread, NULL, serve, s);
}

static void server_stop(server *s)
{
    s->stop = 1;
    pthread_join(s->thread, NULL);
    close(s->fd);
}

static wc_exporter_scraper *scraper_for(server *srv, char *spec, size_t cap,
                                        const wc_exporter_config *cfg)
{
    snprintf(spec, cap, "kepler:http://127.0.0.1:%d/metrics", srv->port);
    static const char *specs[1];
    specs[0] = spec;
    wc_error err = {{0}};
    wc_exporter_scraper *s = wc_exporter_scraper_new(specs, 1, cfg, &err);
    cr_assert_not_null(s, "%s", err.msg);
    cr_assert_eq(wc_exporter_scraper_start(s, &err), 0, "%s", err.msg);
    return s;
}

static void free_all(wc_scrape **q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        wc_scrape_free(q[i]);
    free(q);
}

Test(exporter_scrape, full_queue_drops_oldest_and_token_is_sent, .timeout = 30)
{
    setenv("WATTCAL_EXPORTER_TOKEN", "tok-123", 1);
    server srv;
    server_start(&srv, SRV_OK);
    wc_exporter_config cfg;
    wc_exporter_config_defaults(&cfg);
    cfg.interval_ns = 50000000;
    cfg.queue_max = 3;
    char spec[128];
    wc_exporter_scraper *s = scraper_for(&srv, spec, sizeof spec, &cfg);
    /* nobody drains: the queue overflows (waited for, at most 10 s: a loaded
     * machine scrapes slower than every 50 ms) */
    for (int i = 0; i < 200 && wc_exporter_scraper_dropped(s) < 3; i++)
        usleep(50000);
    wc_exporter_scraper_stop(s);
    wc_scrape **q = NULL;
    size_t n = wc_exporter_scraper_drain(s, &q);
    cr_assert_eq(n, 3, "the queue holds queue_max scrapes");
    cr_assert_geq(wc_exporter_scraper_dropped(s), 3, "dropped %lld",
                  (long long)wc_exporter_scraper_dropped(s));
    cr_assert_eq((int64_t)srv.requests, (int64_t)n + wc_exporter_scraper_dropped(s),
                 "every request is a scrape, kept or counted");
    for (size_t i = 0; i < n; i++) {
        if (q[i]->cancelled) { /* in flight when stop came: only ever the newest */
            cr_assert_eq(i, n - 1, "a cancelled scrape before the newest: %s", q[i]->error);
            continue;
        }
        cr_assert_eq(q[i]->status, WC_SCRAPE_OK, "%s", q[i]->error);
        cr_assert_eq(q[i]->http_status, 200);
        cr_assert_eq(q[i]->nvalues, 5);
        cr_assert(i == 0 || q[i]->req_mono_ns > q[i - 1]->req_mono_ns, "oldest first");
    }
    cr_assert_str_eq(srv.last_auth, "Authorization: Bearer tok-123");
    free_all(q, n);
    cr_assert_eq(wc_exporter_scraper_drain(s, &q), 0);
    wc_exporter_scraper_free(s);
    server_stop(&srv);
}

Test(exporter_scrape, failures_back_off, .timeout = 30)
{
    server srv;
    server_start(&srv, SRV_500);
    wc_exporter_config cfg;
    wc_exporter_config_defaults(&cfg);
    cfg.interval_ns = 100000000; /* retries after 0.2, 0.4, 0.8 s: 4 requests in 1.6 s */
    char spec[128];
    wc_exporter_scraper *s = scraper_for(&srv, spec, sizeof spec, &cfg);
    usleep(1600000);
    wc_exporter_scraper_stop(s);
    wc_scrape **q = NULL;
    size_t n = wc_exporter_scraper_drain(s, &q);
    cr_assert(n >= 3 && n <= 5, "%zu requests in 1.6 s with backoff (16 without)", n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(q[i]->status, WC_SCRAPE_ERROR);
        cr_assert_eq(q[i]->http_status, 500);
        cr_assert(strstr(q[i]->error, "HTTP 500: boom"), "%s", q[i]->error);
        cr_assert_eq(q[i]->nvalues, 0);
    }
    if (n >= 3)
        cr_assert_gt(q[2]->req_mono_ns - q[1]->req_mono_ns, q[1]->req_mono_ns - q[0]->req_mono_ns,
                     "the wait grows");
    free_all(q, n);
    wc_exporter_scraper_free(s);
    server_stop(&srv);
}

Test(exporter_scrape, stop_aborts_a_hanging_exporter_at_once, .timeout = 30)
{
    server srv;
    server_start(&srv, SRV_HANG);
    wc_exporter_config cfg;
    wc_exporter_config_defaults(&cfg);
    cfg.interval_ns = 10 * WC_NS_PER_S;
    cfg.timeout_ns = 10 * WC_NS_PER_S;
    char spec[128];
    wc_exporter_scraper *s = scraper_for(&srv, spec, sizeof spec, &cfg);
    usleep(300000);
    wc_scrape **q = NULL;
    cr_assert_eq(wc_exporter_scraper_drain(s, &q), 0, "draining never waits for the request");
    int64_t t0 = wc_mono_ns();
    wc_exporter_scraper_stop(s);
    int64_t took = wc_mono_ns() - t0;
    cr_assert_lt(took, 3 * WC_NS_PER_S, "stop took %lld ns", (long long)took);
    size_t n = wc_exporter_scraper_drain(s, &q);
    cr_assert_eq(n, 1);
    cr_assert_eq(q[0]->status, WC_SCRAPE_ERROR);
    cr_assert(strstr(q[0]->error, "cancelled"), "%s", q[0]->error);
    free_all(q, n);
    wc_exporter_scraper_free(s);
    server_stop(&srv);
}

Test(exporter_scrape, token_file_empty_is_refused)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "token", "\n");
    char path[512];
    snprintf(path, sizeof path, "%s/token", dir);
    wc_exporter_config cfg;
    wc_exporter_config_defaults(&cfg);
    cfg.token_file = path;
    const char *specs[] = {"kepler:http://127.0.0.1:9/metrics"};
    wc_error err = {{0}};
    cr_assert_null(wc_exporter_scraper_new(specs, 1, &cfg, &err));
    cr_assert(strstr(err.msg, "empty") && strstr(err.msg, path), "%s", err.msg);
    /* a NUL byte or a space inside is refused, not cut ("sec\0ret" is not "sec") */
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite("sec\0ret\n", 1, 8, f);
    fclose(f);
    cr_assert_null(wc_exporter_scraper_new(specs, 1, &cfg, &err));
    cr_assert(strstr(err.msg, "NUL byte") && strstr(err.msg, path), "%s", err.msg);
    wc_test_write(dir, "token", "sec ret\n");
    cr_assert_null(wc_exporter_scraper_new(specs, 1, &cfg, &err));
    cr_assert(strstr(err.msg, "whitespace") && !strstr(err.msg, "ret\n"), "%s", err.msg);
    wc_test_write(dir, "token", "secret\r\n");
    wc_exporter_scraper *ok = wc_exporter_scraper_new(specs, 1, &cfg, &err);
    cr_assert_not_null(ok, "a trailing CRLF is trimmed: %s", err.msg);
    wc_exporter_scraper_free(ok);
    cfg.token_file = NULL;
    const char *five[] = {specs[0], specs[0], specs[0], specs[0], specs[0]};
    cr_assert_null(wc_exporter_scraper_new(five, 5, &cfg, &err));
    cr_assert(strstr(err.msg, "at most 4"), "%s", err.msg);
}

Test(exporter_scrape, body_over_the_cap_is_refused, .timeout = 30)
{
    server srv;
    server_start(&srv, SRV_OK);
    wc_exporter_config cfg;
    wc_exporter_config_defaults(&cfg);
    cfg.max_body = 100; /* BODY is longer */
    char spec[128];
    wc_exporter_scraper *s = scraper_for(&srv, spec, sizeof spec, &cfg);
    wc_scrape **q = NULL;
    size_t n = 0;
    for (int i = 0; i < 300 && n == 0; i++) {
        usleep(10000);
        n = wc_exporter_scraper_drain(s, &q);
    }
    cr_assert_eq(n, 1);
    cr_assert_eq(q[0]->status, WC_SCRAPE_ERROR);
    cr_assert(strstr(q[0]->error, "larger than 100 bytes"), "%s", q[0]->error);
    cr_assert_eq(q[0]->nvalues, 0);
    free_all(q, n);
    wc_exporter_scraper_free(s);
    server_stop(&srv);
}
