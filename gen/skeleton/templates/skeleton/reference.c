/* CPU reference of skeleton (written by bartune new; yours to change): the
 * expected y, bit for bit (verify = "exact"), for this call's share of the
 * elements. See templates/bartune_reference.h in bartune for the interface. */
#include <math.h>

#include "bartune_reference.h"

static int skeleton(bt_problem *p, int part, int parts) {
    const bt_buffer *x = bt_buffer_named(p, "x");
    bt_buffer *y = bt_buffer_named(p, "y");
    const float a = (float)bt_scalar(p, "a"), b = (float)bt_scalar(p, "b");
    const float *in = x->data;
    float *out = y->expect;
    size_t begin, end;
    bt_share(y->length, part, parts, &begin, &end);
    for (size_t i = begin; i < end; i++)
        out[i] = fmaf(a, in[i], b);
    return 0;
}

const bt_reference bartune_references[] = {
    {"skeleton", skeleton},
    {NULL, NULL},
};
