/* CPU reference of the toy problem: y' = a x + y in double, and the bound
 * gamma_2 (|a x| + |y|) that any float evaluation (fused or not) meets. */
#include <math.h>

#include "bartune_reference.h"

static int axpy2d(bt_problem *p, int part, int parts) {
    const bt_buffer *x = bt_buffer_named(p, "x");
    bt_buffer *y = bt_buffer_named(p, "y");
    const double a = (float)bt_scalar(p, "a"), u = ldexp(1.0, -24), gamma2 = 2 * u / (1 - 2 * u);
    const float *xs = x->data, *ys = y->data;
    double *expect = y->expect;
    size_t begin, end;
    bt_share(y->length, part, parts, &begin, &end);
    for (size_t i = begin; i < end; i++) {
        double ax = a * xs[i];
        expect[i] = ax + ys[i];
        y->bound[i] = gamma2 * (fabs(ax) + fabs(ys[i]));
    }
    return 0;
}

const bt_reference bartune_references[] = {
    {"axpy2d", axpy2d},
    {NULL, NULL},
};
