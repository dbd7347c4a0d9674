/*
 * serve_http.h — the HTTP endpoint of `wattcal serve`, on libmicrohttpd
 * (one internal polling thread): GET /metrics renders the serve state
 * (serve_state.h) as text format 0.0.4; GET /healthz answers 200 once a tick
 * was published and the last is recent (at most 3 intervals and 10 s old),
 * else 503 with why; / says where the metrics are; anything else 404, a
 * method other than GET/HEAD 405. With a web config (web_config.h) it
 * speaks TLS and asks for basic auth (401 without valid credentials).
 */
#ifndef WC_SERVE_HTTP_H
#define WC_SERVE_HTTP_H

#include <stdint.h>
#include <sys/socket.h>

#include "collector/serve/serve_state.h"
#include "collector/serve/web_config.h"
#include "common/wc_error.h"

/* The default --listen: loopback and the documented port. */
#define WC_SERVE_DEFAULT_LISTEN "127.0.0.1:9877"

/* Parses "ADDR:PORT" ("127.0.0.1:9877", "0.0.0.0:9877", "[::1]:9877") into
 * ss (numeric addresses only: no name is resolved). Returns 0 or -EINVAL
 * with err saying what is wrong. */
int wc_serve_parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len,
                          wc_error *err);

typedef struct wc_serve_http wc_serve_http;

/* Binds listen, then serves state from a thread of its own (*out). web may
 * be NULL (plain HTTP, no auth) and must outlive the server; interval_ns is
 * the sampling interval (for /healthz). Returns 0, or with err: -EINVAL for
 * a bad address, -errno of socket/bind/listen (-EADDRINUSE...), -ENOTSUP
 * when TLS is asked but libmicrohttpd was built without it, -EIO when the
 * daemon did not start, -ENOMEM. */
int wc_serve_http_start(const char *listen, const wc_web_config *web, wc_serve_state *state,
                        int64_t interval_ns, wc_serve_http **out, wc_error *err);

/* The port actually bound (useful with port 0). */
int wc_serve_http_port(const wc_serve_http *h);

/* Stops the thread, closes the socket and frees (NULL is a no-op). */
void wc_serve_http_stop(wc_serve_http *h);

#endif
