/* The accuracy test's RMS limit over an output of n elements. The problem's
 * RMS limit is a statistic of many elements: over n of them the limit is at
 * least max / sqrt(n), so that a few elements (gemm_bf16 at M = N = K = 1:
 * one, whose honest rounding to bf16 alone reaches 1.7 expected errors) are
 * held to the maximum and many to the RMS (tests/test_accuracy.c). */
#ifndef BARTUNE_ACCURACY_LIMIT_H
#define BARTUNE_ACCURACY_LIMIT_H
#include <math.h>

static inline double accuracy_rms_limit(double rms, double max, double n) {
    return fmax(rms, max / sqrt(n));
}

#endif
