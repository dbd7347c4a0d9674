/*
 * test_replay.c — the re-attribution loop of collector/model/replay.c over a
 * tick source and a row sink made up here (no store): every tick reaches the
 * engine and then the sink in order, and an error of the source or the sink
 * stops the loop and comes back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "collector/model/replay.h"

#define NT 4

/* A source of NT ticks of one package zone (10 J a second) and one process. */
typedef struct fake_src {
    int next, fail_at;           /* fail_at: tick number whose read fails (-1 never) */
    wc_attr_zone_in zone;
    wc_attr_proc_in proc;
    int64_t proc_id;
} fake_src;

static int src_next(void *ctx, wc_replay_tick *t, wc_error *err)
{
    fake_src *s = ctx;
    if (s->next == s->fail_at)
        return wc_error_set(err, -EIO, "source fails at tick %d", s->next);
    if (s->next == NT)
        return 0;
    int k = s->next++;
    memset(t, 0, sizeof *t);
    t->tick_id = 100 + k;
    t->in.mono_ns = (int64_t)k * 1000000000LL;
    t->in.boot_ns = t->in.mono_ns + 5000000000LL;
    t->in.cpu.user = 100u * (uint64_t)k;
    t->in.cpu.idle = 1000u * (uint64_t)k;
    t->in.cpu.cpu = -1;
    t->in.cpu.nfields = 10;
    t->in.cpu_ok = 1;
    s->zone = (wc_attr_zone_in){.name = "package", .energy_uj = 10000000u * (uint64_t)k,
                                .max_energy_range_uj = 1ull << 40, .ok = 1};
    s->proc = (wc_attr_proc_in){.pid = 42, .starttime = 1, .cpu_ticks = 50u * (uint64_t)k,
                                .container_id = "", .pod_uid = ""};
    s->proc_id = 7;
    t->in.zones = &s->zone;
    t->in.nzones = 1;
    t->in.procs = &s->proc;
    t->in.nprocs = 1;
    t->proc_ids = &s->proc_id;
    return 1;
}

/* A sink keeping the tick ids it got; fails at put number fail_at. */
typedef struct fake_sink {
    int n, fail_at;
    int64_t ids[NT];
    size_t nodes[NT];
} fake_sink;

static int sink_put(void *ctx, const wc_replay_tick *t, const wc_attr_out *out, wc_error *err)
{
    fake_sink *k = ctx;
    if (k->n == k->fail_at)
        return wc_error_set(err, -EIO, "sink fails at put %d", k->n);
    k->nodes[k->n] = out->nnode;
    k->ids[k->n++] = t->tick_id;
    return 0;
}

Test(replay, every_tick_goes_through_the_engine_to_the_sink_in_order)
{
    fake_src s = {.fail_at = -1};
    fake_sink k = {.fail_at = -1};
    wc_replay_source src = {.ctx = &s, .next = src_next};
    wc_replay_sink sink = {.ctx = &k, .put = sink_put};
    int64_t ticks = -1;
    wc_error err = {{0}};
    cr_assert_eq(wc_replay_run(WC_MODEL_IDEAL, &src, &sink, &ticks, &err), 0, "%s", err.msg);
    cr_assert_eq(ticks, NT);
    cr_assert_eq(k.n, NT);
    for (int i = 0; i < NT; i++)
        cr_assert_eq(k.ids[i], 100 + i);
    cr_assert_eq(k.nodes[NT - 1], 1, "the package zone is attributed");
}

Test(replay, a_source_or_sink_error_stops_the_loop)
{
    fake_src s = {.fail_at = 2};
    fake_sink k = {.fail_at = -1};
    wc_replay_source src = {.ctx = &s, .next = src_next};
    wc_replay_sink sink = {.ctx = &k, .put = sink_put};
    int64_t ticks = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_replay_run(WC_MODEL_KEPLER_011, &src, &sink, &ticks, &err), -EIO);
    cr_assert_str_eq(err.msg, "source fails at tick 2");
    cr_assert_eq(k.n, 2);
    fake_src s2 = {.fail_at = -1};
    fake_sink k2 = {.fail_at = 1};
    src.ctx = &s2;
    sink.ctx = &k2;
    cr_assert_eq(wc_replay_run(WC_MODEL_KEPLER_HEAD, &src, &sink, &ticks, &err), -EIO);
    cr_assert_str_eq(err.msg, "sink fails at put 1");
    cr_assert_eq(k2.n, 1);
    cr_assert_eq(s2.next, 2, "no tick is read after the failing one");
}
