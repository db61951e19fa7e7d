/* The CPU reference of the runner's own test problem (tests/runner/
 * test_problem_setup.c): y = a x, element by element, except where y's view
 * has padding (the runner's to fill); x is not read where a is 0 (its
 * unset_when_zero case: it holds NaN then). */
#include "bartune_reference.h"

static int probe(bt_problem *p, int part, int parts) {
    bt_buffer *x = bt_buffer_named(p, "x"), *y = bt_buffer_named(p, "y");
    const long long ld = bt_size(p, "ld"), cols = bt_size(p, "cols");
    const float a = (float)bt_scalar(p, "a");
    size_t begin, end;
    bt_share(y->length, part, parts, &begin, &end);
    for (size_t i = begin; i < end; i++)
        if ((long long)(i % (size_t)ld) < cols)
            ((float *)y->expect)[i] = a != 0 ? a * ((const float *)x->data)[i] : 0.0f;
    return 0;
}

const bt_reference bartune_references[] = {{"probe", probe}, {NULL, NULL}};
