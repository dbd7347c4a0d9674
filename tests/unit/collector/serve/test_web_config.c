/*
 * test_web_config.c — `wattcal serve --web-config` (collector/serve/
 * web_config.c) with the own fixtures (tests/fixtures/serve/): a bcrypt user
 * accepted with the right password only, settings it cannot honour and
 * clear-text passwords refused with the key named, TLS files read relative
 * to the config.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/serve/web_config.h"
#include "tests/unit/support/test_support.h"

Test(serve_web_config, basic_auth_bcrypt)
{
    wc_web_config c;
    wc_error err = {{0}};
    cr_assert_eq(wc_web_config_load(wc_own_fixture("serve/web-config-auth.yml"), &c, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(c.nusers, 1);
    cr_assert_null(c.cert_pem, "no TLS asked");
    cr_assert(wc_web_config_check(&c, "prom", "wattcal-test-pw"));
    cr_assert(!wc_web_config_check(&c, "prom", "wrong"));
    cr_assert(!wc_web_config_check(&c, "other", "wattcal-test-pw"));
    cr_assert(!wc_web_config_check(&c, "prom", NULL));
    wc_web_config_free(&c);
}

Test(serve_web_config, refusals_name_the_key)
{
    wc_web_config c;
    wc_error err = {{0}};
    cr_assert_eq(wc_web_config_load(wc_own_fixture("serve/web-config-unsupported.yml"), &c, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "tls_server_config.client_auth_type is not supported"),
                       "%s", err.msg);
    cr_assert_eq(wc_web_config_load(wc_own_fixture("serve/web-config-plain-hash.yml"), &c, &err),
                 -EINVAL);
    cr_assert_not_null(strstr(err.msg, "basic_auth_users.prom: not a bcrypt hash"), "%s",
                       err.msg);
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "x.yml", "http_server_config:\n  http2: false\n");
    char path[512];
    snprintf(path, sizeof path, "%s/x.yml", dir);
    cr_assert_eq(wc_web_config_load(path, &c, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "http_server_config is not supported"), "%s", err.msg);
    wc_test_write(dir, "y.yml", "basic_auth_users: [a, b\n");
    snprintf(path, sizeof path, "%s/y.yml", dir);
    cr_assert_eq(wc_web_config_load(path, &c, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "y.yml:"), "malformed YAML names the file: %s", err.msg);
}

Test(serve_web_config, tls_files_relative_to_the_config)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "web.yml", "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n");
    wc_test_write(dir, "c.pem", "CERT\n");
    wc_test_write(dir, "k.pem", "KEY\n");
    char path[512];
    snprintf(path, sizeof path, "%s/web.yml", dir);
    wc_web_config c;
    wc_error err = {{0}};
    cr_assert_eq(wc_web_config_load(path, &c, &err), 0, "%s", err.msg);
    cr_assert_str_eq(c.cert_pem, "CERT\n");
    cr_assert_str_eq(c.key_pem, "KEY\n");
    wc_web_config_free(&c);
    wc_test_write(dir, "half.yml", "tls_server_config:\n  cert_file: c.pem\n");
    snprintf(path, sizeof path, "%s/half.yml", dir);
    cr_assert_eq(wc_web_config_load(path, &c, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "needs both cert_file and key_file"), "%s", err.msg);
}
