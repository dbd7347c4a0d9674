/*
 * web_config.c — the exporter-toolkit web config subset (see web_config.h),
 * read with libyaml's document API.
 */
#include "collector/serve/web_config.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/wc_fs.h"
#include "common/wc_text.h"

/* The scalar text of node n, or NULL when n is not a scalar. */
static const char *scalar(yaml_document_t *d, int n)
{
    yaml_node_t *node = yaml_document_get_node(d, n);
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

/* Reads a PEM file named in the config (relative to the config's folder). */
static int read_pem(const char *cfg_path, const char *name, char **out, wc_error *err)
{
    char path[1024];
    const char *slash = strrchr(cfg_path, '/');
    if (name[0] == '/' || !slash)
        wc_copy_trunc(path, sizeof path, name);
    else
        wc_textf(path, sizeof path, "%.*s/%s", (int)(slash - cfg_path), cfg_path, name);
    size_t len = 0;
    int rc = wc_read_all(path, out, &len, err);
    if (rc)
        return wc_error_set(err, rc, "--web-config %s: cannot read %s: %s", cfg_path, path,
                            strerror(-rc));
    return 0;
}

static int tls_section(const char *path, yaml_document_t *d, yaml_node_t *m, wc_web_config *c,
                       wc_error *err)
{
    const char *cert = NULL, *key = NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const char *k = scalar(d, p->key), *v = scalar(d, p->value);
        if (k && v && strcmp(k, "cert_file") == 0)
            cert = v;
        else if (k && v && strcmp(k, "key_file") == 0)
            key = v;
        else
            return wc_error_set(err, -EINVAL, "--web-config %s: tls_server_config.%s is not "
                                "supported (only cert_file and key_file); put a TLS proxy "
                                "in front of serve for it", path, k ? k : "?");
    }
    if (!cert || !key)
        return wc_error_set(err, -EINVAL, "--web-config %s: tls_server_config needs both "
                            "cert_file and key_file", path);
    int rc = read_pem(path, cert, &c->cert_pem, err);
    return rc ? rc : read_pem(path, key, &c->key_pem, err);
}

static int users_section(const char *path, yaml_document_t *d, yaml_node_t *m,
                         wc_web_config *c, wc_error *err)
{
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const char *k = scalar(d, p->key), *v = scalar(d, p->value);
        if (!k || !v || !*k)
            return wc_error_set(err, -EINVAL, "--web-config %s: basic_auth_users: each entry "
                                "is user: bcrypt-hash", path);
        if (strncmp(v, "$2a$", 4) && strncmp(v, "$2b$", 4) && strncmp(v, "$2y$", 4))
            return wc_error_set(err, -EINVAL, "--web-config %s: basic_auth_users.%s: not a "
                                "bcrypt hash ($2a$, $2b$ or $2y$; e.g. htpasswd -nBC 10 USER)",
                                path, k);
        if (c->nusers == WC_WEB_MAX_USERS || strlen(k) >= sizeof c->users[0].name ||
            strlen(v) >= sizeof c->users[0].hash)
            return wc_error_set(err, -EINVAL, "--web-config %s: basic_auth_users: too many "
                                "users or too long an entry", path);
        wc_copy_trunc(c->users[c->nusers].name, sizeof c->users[0].name, k);
        wc_copy_trunc(c->users[c->nusers].hash, sizeof c->users[0].hash, v);
        c->nusers++;
    }
    return 0;
}

/* The top-level mapping: two known sections, each a mapping. */
static int walk(const char *path, yaml_document_t *d, wc_web_config *c, wc_error *err)
{
    yaml_node_t *root = yaml_document_get_root_node(d);
    if (!root)
        return 0; /* an empty file: no TLS, no auth */
    if (root->type != YAML_MAPPING_NODE)
        return wc_error_set(err, -EINVAL, "--web-config %s: not a YAML mapping", path);
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const char *k = scalar(d, p->key);
        yaml_node_t *v = yaml_document_get_node(d, p->value);
        int tls = k && strcmp(k, "tls_server_config") == 0;
        int users = k && strcmp(k, "basic_auth_users") == 0;
        if (!tls && !users)
            return wc_error_set(err, -EINVAL, "--web-config %s: %s is not supported (only "
                                "tls_server_config and basic_auth_users)", path, k ? k : "?");
        if (!v || v->type != YAML_MAPPING_NODE)
            return wc_error_set(err, -EINVAL, "--web-config %s: %s must be a mapping", path, k);
        int rc = tls ? tls_section(path, d, v, c, err) : users_section(path, d, v, c, err);
        if (rc)
            return rc;
    }
    return 0;
}

int wc_web_config_load(const char *path, wc_web_config *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return wc_error_set(err, -errno, "--web-config %s: %s", path, strerror(errno));
    yaml_parser_t parser;
    yaml_document_t doc;
    int rc = 0;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        return wc_error_set(err, -ENOMEM, "--web-config %s: out of memory", path);
    }
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        rc = wc_error_set(err, -EINVAL, "--web-config %s:%zu: %s", path,
                          parser.problem_mark.line + 1,
                          parser.problem ? parser.problem : "malformed YAML");
    } else {
        rc = walk(path, &doc, out, err);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc)
        wc_web_config_free(out);
    return rc;
}

int wc_web_config_check(const wc_web_config *c, const char *user, const char *password)
{
    if (!user || !password)
        return 0;
    for (size_t i = 0; i < c->nusers; i++) {
        if (strcmp(c->users[i].name, user) != 0)
            continue;
        struct crypt_data data;
        memset(&data, 0, sizeof data);
        const char *h = crypt_rn(password, c->users[i].hash, &data, sizeof data);
        size_t n = strlen(c->users[i].hash);
        if (!h || strlen(h) != n)
            return 0;
        unsigned char diff = 0;
        for (size_t k = 0; k < n; k++)
            diff |= (unsigned char)(h[k] ^ c->users[i].hash[k]);
        explicit_bzero(&data, sizeof data);
        return diff == 0;
    }
    return 0;
}

void wc_web_config_free(wc_web_config *c)
{
    if (c->key_pem)
        explicit_bzero(c->key_pem, strlen(c->key_pem));
    free(c->cert_pem);
    free(c->key_pem);
    explicit_bzero(c->users, sizeof c->users);
    c->cert_pem = c->key_pem = NULL;
    c->nusers = 0;
}
