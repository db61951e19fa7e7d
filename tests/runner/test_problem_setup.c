/* The runner's problem setup on the CPU (no GPU): the three input sets, the
 * views' padding and the scalars' values per set, as runner/problem.h says.
 * Usage: test_problem_setup PROBE_REFERENCE.so */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

enum { ROWS = 100, COLS = 70, LD = 80, LENGTH = (ROWS - 1) * LD + COLS };

/* The probe problem; `pick` chooses set 1's special value of a (0 or 1),
 * `x_extra` and `y_extra` add fields to the buffers. */
static json_t *request_with(const char *lib, long long secret, int pick, const char *x_extra,
                            const char *y_extra) {
    char text[4096];
    snprintf(text, sizeof text,
             "{\"op\":\"problem\",\"name\":\"probe\",\"reference\":\"%s\",\"verify\":\"exact\","
             "\"seed\":1,\"secret\":%lld,"
             "\"sizes\":[{\"name\":\"ld\",\"type\":\"int\",\"value\":%d},"
             "{\"name\":\"cols\",\"type\":\"int\",\"value\":%d}],"
             "\"scalars\":[{\"name\":\"a\",\"type\":\"float\",\"value\":2,\"range\":[-4,4],"
             "\"special\":[0,1],\"pick\":%d}],"
             "\"buffers\":[{\"name\":\"x\",\"type\":\"float\",\"role\":\"in\",\"length\":%d,"
             "\"init\":{\"kind\":\"uniform\",\"lo\":-1,\"hi\":1},"
             "\"init2\":{\"kind\":\"logmag\",\"lo\":0.001,\"hi\":1000},%s"
             "\"view\":{\"rows\":%d,\"cols\":%d,\"ld\":%d}},"
             "{\"name\":\"y\",\"type\":\"float\",\"role\":\"out\",\"length\":%d,%s"
             "\"view\":{\"rows\":%d,\"cols\":%d,\"ld\":%d}}],"
             "\"args\":[{\"buffer\":\"x\"},{\"buffer\":\"y\"},"
             "{\"name\":\"a\",\"type\":\"float\",\"value\":2}]}",
             lib, secret, LD, COLS, pick, LENGTH, x_extra, ROWS, COLS, LD, LENGTH, y_extra, ROWS,
             COLS, LD);
    json_error_t je;
    json_t *req = json_loads(text, 0, &je);
    if (!req) printf("bad test request: %s\n", je.text);
    return req;
}

static json_t *request(const char *lib, long long secret) {
    return request_with(lib, secret, 1, "", "");
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Positions where set 2 differs from set 0 (none of them padding). */
static int changed(const rbuf *x, int *first) {
    const float *s0 = x->host[0], *s2 = x->host[2];
    int n = 0;
    for (int i = 0; i < LENGTH; i++)
        if (bits(s0[i]) != bits(s2[i])) {
            CHECK(i % LD < COLS, "set 2 changed padding at %d", i);
            if (!n) *first = i;
            n++;
        }
    return n;
}

/* unset_when_zero: where a is 0 (set 1, pick 0) x holds NaN outside its
 * padding, and the reference reads none of it; elsewhere x is as drawn; a
 * name that is no scalar, or an output, is refused. */
static void check_unset(const char *lib) {
    rproblem p;
    bool cached;
    char *why = NULL;
    json_t *req = request_with(lib, 7, 0, "\"unset_when_zero\":\"a\",", "");
    CHECK(problem_setup(&p, req, &cached, &why), "unset setup: %s", why ? why : "?");
    const rbuf *x = &p.bufs[0], *y = &p.bufs[1];
    CHECK(p.scalars[0].value[1] == 0, "set 1's a is %g, not its special value 0",
          p.scalars[0].value[1]);
    CHECK(problem_unset_in(&p, 1) == x && !problem_unset_in(&p, 0) && !problem_unset_in(&p, 2),
          "problem_unset_in does not name x in set 1 alone");
    int nan1 = 0, nan0 = 0, pad = 0;
    for (int i = 0; i < LENGTH; i++) {
        const float v1 = ((const float *)x->host[1])[i], v0 = ((const float *)x->host[0])[i];
        const float v2 = ((const float *)x->host[2])[i], e1 = ((const float *)y->expect[1])[i];
        if (i % LD >= COLS) {
            pad += bits(v1) == bits(-1e30f);
            continue;
        }
        nan1 += isnan(v1);
        nan0 += isnan(v0) || isnan(v2);
        CHECK(e1 == 0.0f, "set 1's expected y[%d] = %g, not 0 (a = 0)", i, e1);
    }
    CHECK(nan1 == ROWS * COLS, "set 1: %d of %d elements of x are NaN", nan1, ROWS * COLS);
    CHECK(pad == (ROWS - 1) * (LD - COLS), "set 1: x's padding lost its pattern");
    CHECK(nan0 == 0, "sets 0 and 2 (a = 2) hold %d NaN", nan0);
    problem_free(&p);
    json_decref(req);
    const char *bad[][2] = {{"\"unset_when_zero\":\"b\",", ""},
                            {"", "\"unset_when_zero\":\"a\","},
                            {"\"unset_when_zero\":3,", ""}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        why = NULL;
        req = request_with(lib, 7, 0, bad[k][0], bad[k][1]);
        CHECK(!problem_setup(&p, req, &cached, &why) && why && strstr(why, "unset_when_zero"),
              "bad unset_when_zero %zu was set up (%s)", k, why ? why : "no message");
        free(why);
        problem_free(&p);
        json_decref(req);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    rproblem p;
    bool cached;
    char *why = NULL;
    json_t *req = request(argv[1], 12345);
    CHECK(problem_setup(&p, req, &cached, &why), "setup: %s", why ? why : "?");
    const rbuf *x = &p.bufs[0], *y = &p.bufs[1];
    const uint32_t pattern = bits(-1e30f);
    CHECK(x->ld == LD && x->cols == COLS && y->ld == LD, "the views were not read");
    for (int set = 0; set < SETS; set++) {
        const float *v = x->host[set];
        const uint32_t *e = y->expect[set];
        for (int i = 0; i < LENGTH; i++) {
            if (i % LD >= COLS) {
                CHECK(bits(v[i]) == pattern, "set %d: x padding %d is %g", set, i, v[i]);
                CHECK(e[i] == pattern, "set %d: y's expected padding %d is not the pattern", set,
                      i);
                continue;
            }
            if (set == 1)
                CHECK(fabsf(v[i]) >= 0.0009f && fabsf(v[i]) <= 1001.f,
                      "set 1: x[%d] = %g outside logmag 1e-3..1e3", i, v[i]);
            else
                CHECK(v[i] >= -1.f && v[i] <= 1.f, "set %d: x[%d] = %g outside -1..1", set, i,
                      v[i]);
        }
    }
    /* set 1 spans the scales: some values above 100 and some below 0.01 */
    int big = 0, small = 0;
    for (int i = 0; i < LENGTH; i++) {
        float v = fabsf(((const float *)x->host[1])[i]);
        if (i % LD < COLS) big += v > 100.f, small += v < 0.01f;
    }
    CHECK(big > 100 && small > 100, "set 1 does not span the scales (%d big, %d small)", big,
          small);
    /* the scalar: its value in sets 0 and 2, the special value `pick` names in set 1 */
    CHECK(p.n_scalars == 1 && p.scalars[0].value[0] == 2 && p.scalars[0].value[1] == 1 &&
              p.scalars[0].value[2] == 2,
          "scalar a per set: %g %g %g", p.scalars[0].value[0], p.scalars[0].value[1],
          p.scalars[0].value[2]);
    CHECK(p.args[1][2].v.f32 == 1.0f && p.args[0][2].v.f32 == 2.0f,
          "the kernel's argument a per set: %g, %g", p.args[0][2].v.f32, p.args[1][2].v.f32);
    /* the reference saw each set's scalar: y = 1 * x in set 1 */
    for (int i = 0; i < LENGTH; i++)
        if (i % LD < COLS)
            CHECK(((const float *)y->expect[1])[i] == ((const float *)x->host[1])[i],
                  "set 1's reference did not see a = 1 at %d", i);
    /* set 2: set 0 with a few values changed, where the secret says */
    int first = -1, n = changed(x, &first);
    CHECK(n >= 1 && n <= LENGTH / 1024, "set 2 differs from set 0 in %d places", n);
    rproblem q;
    json_t *req2 = request(argv[1], 999);
    CHECK(problem_setup(&q, req2, &cached, &why), "setup 2: %s", why ? why : "?");
    int first2 = -1;
    changed(&q.bufs[0], &first2);
    CHECK(first2 != first, "another secret changed the same first position %d", first);
    CHECK(!problem_unset_in(&p, 0) && !problem_unset_in(&p, 1), "no unset_when_zero, yet unset");
    problem_free(&p);
    problem_free(&q);
    json_decref(req);
    json_decref(req2);
    check_unset(argv[1]);
    if (!failures)
        printf("problem setup: three input sets, views, scalars per set, unset inputs ok\n");
    return failures ? 1 : 0;
}
