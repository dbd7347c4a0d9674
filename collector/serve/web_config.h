/*
 * web_config.h — `wattcal serve --web-config FILE`: TLS and basic auth in
 * the Prometheus exporter-toolkit's web-config format
 * (prometheus/exporter-toolkit docs/web-configuration.md), the subset wattcal
 * honours:
 *
 *   tls_server_config:
 *     cert_file: server.crt      # PEM; relative paths are relative to FILE
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt hashes only, as the toolkit
 *
 * Anything else (client_auth_type, client_ca_file, min_version,
 * cipher_suites, http_server_config, ...) is refused with an error naming the
 * key: a setting wattcal cannot honour never passes silently. Passwords are
 * checked with libxcrypt's crypt_rn (bcrypt: $2a$, $2b$, $2y$) and compared
 * in constant time. Credentials come from this file only, never argv.
 */
#ifndef WC_WEB_CONFIG_H
#define WC_WEB_CONFIG_H

#include <stddef.h>

#include "common/wc_error.h"

#define WC_WEB_MAX_USERS 64

/* One basic-auth user. */
typedef struct wc_web_user {
    char name[128];
    char hash[128];              /* bcrypt */
} wc_web_user;

/* A loaded web config. Zero-initialised = no TLS, no auth. */
typedef struct wc_web_config {
    char *cert_pem, *key_pem;    /* file contents (NUL-terminated) when TLS; else NULL */
    wc_web_user users[WC_WEB_MAX_USERS];
    size_t nusers;               /* 0: no authentication */
} wc_web_config;

/* Reads path into *out. Returns 0; -EINVAL with err naming FILE and the key
 * for an unknown key, a non-bcrypt hash, a cert without a key (or the
 * reverse) or malformed YAML; -errno for a file that cannot be read. */
int wc_web_config_load(const char *path, wc_web_config *out, wc_error *err);

/* 1 when user and password match a configured user, else 0 (also with no
 * users configured). */
int wc_web_config_check(const wc_web_config *c, const char *user, const char *password);

/* Frees the PEM texts and wipes the hashes. */
void wc_web_config_free(wc_web_config *c);

#endif
