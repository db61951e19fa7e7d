// What a program that includes a committed header relies on, one mode per
// process (each mode's calls are the first of its process): a first call
// under graph capture takes the path a direct call takes and its graph
// replays at the direct call's speed; first calls from two threads at once;
// the path a build reports (a plain -arch=sm_90 build of an sm_90a space:
// the portable variant, saying why); C's padding untouched; an error the
// caller left pending is still there after a call; a GEMM of more rows than
// one grid holds in tiles is right in every row; BLAS's alpha = 0 and K = 0
// read neither A nor B. Built for one header
// with -DTRUST_GEMM_BF16, -DTRUST_PIPELINE or -DTRUST_SGEMM
// (tests/header_trust.sh). Calls in two streams at once give a lone call's
// results; calls of several shapes in one stream, and in more streams than
// the header keeps scratch memory for, give right results (reuse), and so
// do calls after cudaDeviceReset (reset), and calls from eight threads in
// seven streams at once (contend).
// Usage: trust capture|threads|streams|path-tuned|path-portable|padding|pending|tall|blas|reuse|reset|contend
// (exit 77 without a GPU).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda_check.h"

// A GEMM's problem: M x N x K with C's leading dimension ldc (>= N), A and B
// packed, of element type T (made from a float by make, read back by get).
template <typename T, T (*make)(float), float (*get)(T)>
struct gemm_buffers {
    using elem = T;
    // The element stored at `bytes`, as a float.
    static float at(const unsigned char* bytes) {
        T t;
        memcpy(static_cast<void*>(&t), bytes, sizeof t);
        return get(t);
    }
    int M, N, K, ldc;
    T *A = nullptr, *B = nullptr, *C = nullptr;
    size_t lc() const { return (size_t)(M - 1) * ldc + N; }
    bool alloc() {
        std::vector<T> h((size_t)M * K > (size_t)K * N ? (size_t)M * K : (size_t)K * N);
        for (size_t i = 0; i < h.size(); i++) h[i] = make((float)(i % 13) / 13.f - 0.5f);
        CHECK(cudaMalloc(&A, (size_t)M * K * sizeof(T)));
        CHECK(cudaMalloc(&B, (size_t)K * N * sizeof(T)));
        CHECK(cudaMalloc(&C, lc() * sizeof(T)));
        CHECK(cudaMemcpy(A, h.data(), (size_t)M * K * sizeof(T), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(B, h.data(), (size_t)K * N * sizeof(T), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(C, 0x3c, lc() * sizeof(T)));
        CHECK(cudaDeviceSynchronize());  // set before a call in a non-blocking stream reads them
        return true;
    }
    size_t n_or_zero() const { return 0; }
    // Rows of C (after one run(): C = A B + 0.5 C0, C0 alloc()'s 0x3c bytes)
    // with an element off by more than tol of its terms' magnitudes.
    long wrong_rows(double tol) const {
        std::vector<T> got(lc());
        if (cudaMemcpy(got.data(), C, got.size() * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return M;
        unsigned char c0[sizeof(T)];
        memset(c0, 0x3c, sizeof c0);
        const double old = 0.5 * at(c0);
        double in[13];  // alloc()'s fill of A and B: element i is in[i % 13]
        for (int x = 0; x < 13; x++) in[x] = get(make((float)x / 13.f - 0.5f));
        long bad = 0;
        for (int i = 0; i < M; i++) {
            bool ok = true;
            for (int j = 0; j < N; j++) {
                double sum = old, mag = fabs(old);
                for (int k = 0; k < K; k++) {
                    const double p = in[((size_t)i * K + k) % 13] * in[((size_t)k * N + j) % 13];
                    sum += p, mag += fabs(p);
                }
                ok = ok && fabs(get(got[(size_t)i * ldc + j]) - sum) <= tol * mag;
            }
            bad += !ok;
        }
        return bad;
    }
};

#if defined(TRUST_GEMM_BF16)
#include "gemm_bf16.cuh"
inline __nv_bfloat16 make_bf16(float x) { return __float2bfloat16(x); }
inline float get_bf16(__nv_bfloat16 x) { return __bfloat162float(x); }
struct call : gemm_buffers<__nv_bfloat16, make_bf16, get_bf16> {
    static constexpr double tol = 1.0 / 256;  // C rounded to bf16
    cudaError_t run_with(int k, float alpha, float beta, cudaStream_t s = 0) const {
        return bartune_gemm_bf16(0, 0, M, N, k, alpha, A, K, B, N, beta, C, ldc, s);
    }
    cudaError_t run(cudaStream_t s) const { return run_with(K, 1.0f, 0.5f, s); }
    bartune_gemm_bf16_path_t path() const {
        return bartune_gemm_bf16_path(0, 0, M, N, K, 1.0f, A, K, B, N, 0.5f, C, ldc);
    }
};
static call big() { return {{4096, 4096, 4096, 4096}}; }
static call padded() { return {{129, 257, 64, 264}}; }
// ldc odd: the plain kernel, whose grid's y holds the rows' 64-row tiles
static call tall() { return {{65535 * 128 + 1, 8, 8, 9}}; }
static const bool arch_specific = true;
#elif defined(TRUST_PIPELINE)
#include "pipeline.cuh"
struct call {
    size_t n;
    int ldc = 0, M = 0, N = 0;
    float *in = nullptr, *C = nullptr; /* C: out, with a guard after n */
    size_t lc() const { return n + 64; }
    bool alloc() {
        CHECK(cudaMalloc(&in, n * 4));
        CHECK(cudaMalloc(&C, lc() * 4));
        CHECK(cudaMemset(in, 0, n * 4));
        CHECK(cudaMemset(C, 0x3c, lc() * 4));
        CHECK(cudaDeviceSynchronize());  // set before a call in a non-blocking stream reads them
        return true;
    }
    cudaError_t run(cudaStream_t s) const { return bartune_pipeline(in, C, n, s); }
    size_t n_or_zero() const { return n; }
    bartune_pipeline_path_t path() const { return bartune_pipeline_path(in, C, n); }
};
static call big() { return {(size_t)1 << 28}; }
static call padded() { return {1000003}; }
static const bool arch_specific = false;
#elif defined(TRUST_SGEMM)
#include "sgemm.cuh"
// The tall-K shape: its tuned variant sums split-K slices through scratch
// memory the header allocates per call.
inline float make_float(float x) { return x; }
struct call : gemm_buffers<float, make_float, make_float> {
    static constexpr double tol = 1e-5;
    cudaError_t run_with(int k, float alpha, float beta, cudaStream_t s = 0) const {
        return bartune_sgemm(M, N, k, alpha, A, K, B, N, beta, C, ldc, s);
    }
    cudaError_t run(cudaStream_t s) const { return run_with(K, 1.0f, 0.5f, s); }
    bartune_sgemm_path_t path() const { return bartune_sgemm_path(M, N, K, 1.0f, A, K, B, N, 0.5f, C, ldc); }
};
static call big() { return {{256, 256, 16384, 256}}; }
static call padded() { return {{200, 136, 16384, 140}}; }
// more rows than a grid's y holds in tiles of 128 (every variant's tiles
// are 64 or 128 rows)
static call tall() { return {{65535 * 128 + 1, 8, 8, 9}}; }
static const bool arch_specific = false;
#else
#error "build with -DTRUST_GEMM_BF16, -DTRUST_PIPELINE or -DTRUST_SGEMM"
#endif

static float median_ms(const call &c, cudaStream_t s, cudaGraphExec_t g) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms(21);
    for (int i = -2; i < (int)ms.size(); i++) {
        cudaEventRecord(a, s);
        if (g)
            cudaGraphLaunch(g, s);
        else
            c.run(s);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        if (i >= 0) cudaEventElapsedTime(&ms[i], a, b);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// The first call of the process under capture: the same variant as a direct
// call, and the graph's replay within 1.1x of the direct call's time.
static bool capture() {
    call c = big();
    if (!c.alloc()) return false;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    const int captured = c.path().variant;
    CHECK(c.run(s));
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const auto p = c.path();
    const float direct = median_ms(c, s, nullptr), replay = median_ms(c, s, exec);
    printf("capture: variant %d under capture, %d outside (%s%s%s); direct %.4f ms, graph %.4f ms "
           "(%.2fx)\n",
           captured, p.variant, p.name, p.why ? ": " : "", p.why ? p.why : "", direct, replay,
           replay / direct);
    return captured == p.variant && replay <= 1.1f * direct;
}

// First calls from two threads at once: both right, both the same variant.
static bool threads() {
    call c[2] = {padded(), padded()};
    if (!c[0].alloc() || !c[1].alloc()) return false;
    cudaError_t e[2];
    int v[2];
    std::thread t0([&] { v[0] = c[0].path().variant; e[0] = c[0].run(0); });
    std::thread t1([&] { v[1] = c[1].path().variant; e[1] = c[1].run(0); });
    t0.join();
    t1.join();
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned short> a(c[0].lc() * sizeof *c[0].C / 2), b(a.size());
    CHECK(cudaMemcpy(a.data(), c[0].C, a.size() * 2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), c[1].C, b.size() * 2, cudaMemcpyDeviceToHost));
    printf("threads: %s, %s; variants %d and %d; results %s\n", cudaGetErrorString(e[0]),
           cudaGetErrorString(e[1]), v[0], v[1], a == b ? "equal" : "DIFFERENT");
    return e[0] == cudaSuccess && e[1] == cudaSuccess && v[0] == v[1] && a == b;
}

// Calls in two streams at once, back to back with no synchronisation between
// them, each into a C of its own from the same inputs (and C's old values):
// every result equals a lone call's (whatever a variant keeps per call,
// scratch memory say, is the call's own).
static bool streams() {
    call c[2] = {padded(), padded()}, lone = padded();
    if (!c[0].alloc() || !c[1].alloc() || !lone.alloc()) return false;
    const size_t bytes = lone.lc() * sizeof *lone.C;
    std::vector<unsigned char> init(bytes), want(bytes), got(bytes);
    CHECK(cudaMemcpy(init.data(), lone.C, bytes, cudaMemcpyDeviceToHost));
    CHECK(lone.run(0));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(want.data(), lone.C, bytes, cudaMemcpyDeviceToHost));
    cudaStream_t s[2];
    for (auto &x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    int same = 0, rounds = 20;
    for (int r = 0; r < rounds; r++) {
        for (auto &x : c) CHECK(cudaMemcpy(x.C, init.data(), bytes, cudaMemcpyHostToDevice));
        // A copy from pageable memory may return before its DMA lands, and the non-blocking
        // streams do not wait for it: unsynchronised, a late DMA overwrote a call's results
        // (2 of 20 rounds, H200, the pipeline header under ctest -j5).
        CHECK(cudaDeviceSynchronize());
        for (int i = 0; i < 2; i++) CHECK(c[i].run(s[i]));
        CHECK(cudaDeviceSynchronize());
        bool ok = true;
        for (auto &x : c) {
            CHECK(cudaMemcpy(got.data(), x.C, bytes, cudaMemcpyDeviceToHost));
            ok = ok && got == want;
        }
        same += ok;
    }
    printf("streams: %d of %d rounds of two concurrent calls equal to a lone call (%s)\n", same, rounds,
           lone.path().name);
    return same == rounds;
}

// The path this build takes: a tuned variant with no reason given
// (path-tuned), or the portable one saying why (path-portable, a plain sm_90
// build of a space built for sm_90a), at the tuned size: padded()'s odd
// leading dimension takes the plain kernel by design.
static bool path(bool tuned) {
    call c = big();
    if (!c.alloc()) return false;
    const auto p = c.path();
    printf("path: variant %d, %s%s%s\n", p.variant, p.name, p.why ? ": " : "", p.why ? p.why : "");
    if (tuned) return p.variant >= 0 && !p.why;
    return p.variant < 0 && p.why && strstr(p.why, "flags");
}

// C's padding (columns N..ldc-1; for the pipeline, past n) comes back as it was.
static bool padding() {
    call c = padded();
    if (!c.alloc()) return false;
    CHECK(c.run(0));
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned char> got(c.lc() * sizeof *c.C);
    CHECK(cudaMemcpy(got.data(), c.C, got.size(), cudaMemcpyDeviceToHost));
    const size_t elem = sizeof *c.C;
    long changed = 0;
    for (size_t i = 0; i < c.lc(); i++) {
        const bool pad = c.ldc ? (int)(i % c.ldc) >= c.N : i >= c.n_or_zero();
        if (!pad) continue;
        for (size_t k = 0; k < elem; k++) changed += got[i * elem + k] != 0x3c;
    }
    printf("padding: %ld bytes changed (%s)\n", changed, c.path().name);
    return changed == 0;
}

#if defined(TRUST_PIPELINE)
static bool tall_rows() {
    printf("tall: a GEMM's mode (the pipeline has no rows)\n");
    return false;
}
static bool blas() {
    printf("blas: a GEMM's mode (the pipeline has no scalars)\n");
    return false;
}
#else
// BLAS's scalars: alpha = 0 reads neither A nor B (all NaN here), so C =
// beta C exactly (beta = 0.5); K = 0 with beta = 0 reads no C (all NaN
// here), so C = 0. Every element of C checked (the padding is padding()'s).
static bool blas() {
    call c = padded();
    if (!c.alloc()) return false;
    const size_t bytes = c.lc() * sizeof *c.C;
    std::vector<unsigned char> init(bytes), got(bytes);
    CHECK(cudaMemcpy(init.data(), c.C, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemset(c.A, 0xff, (size_t)c.M * c.K * sizeof *c.A));  // NaN, float or bf16
    CHECK(cudaMemset(c.B, 0xff, (size_t)c.K * c.N * sizeof *c.B));
    const cudaError_t e0 = c.run_with(c.K, 0.0f, 0.5f);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), c.C, bytes, cudaMemcpyDeviceToHost));
    long off_alpha = 0, off_k = 0;
    for (int i = 0; i < c.M; i++)
        for (int j = 0; j < c.N; j++) {
            const size_t at = (size_t)i * c.ldc + j;
            const size_t b = at * sizeof(call::elem);
            off_alpha += !(call::at(&got[b]) == 0.5f * call::at(&init[b]));
        }
    CHECK(cudaMemset(c.C, 0xff, bytes));
    const cudaError_t e1 = c.run_with(0, 1.0f, 0.0f);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), c.C, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < c.M; i++)
        for (int j = 0; j < c.N; j++) {
            const size_t at = (size_t)i * c.ldc + j;
            off_k += !(call::at(&got[at * sizeof(call::elem)]) == 0.0f);
        }
    printf("blas: alpha = 0 with NaN A and B: %s, %ld elements not beta C; K = 0, beta = 0 with NaN C: "
           "%s, %ld elements not 0 (%s)\n", cudaGetErrorString(e0), off_alpha, cudaGetErrorString(e1), off_k,
           c.path().name);
    return e0 == cudaSuccess && e1 == cudaSuccess && off_alpha == 0 && off_k == 0;
}

// A call of more rows than one grid's y holds in the kernels' tiles (65535
// of them): the header runs it in several launches, and every row is right,
// the last ones too.
static bool tall_rows() {
    call c = tall();
    if (!c.alloc()) return false;
    const cudaError_t e = c.run(0);
    const cudaError_t done = cudaDeviceSynchronize();
    const long bad = e == cudaSuccess && done == cudaSuccess ? c.wrong_rows(c.tol) : c.M;
    printf("tall: M = %d, N = %d, K = %d, ldc = %d (%s): returned %s, %ld rows wrong\n", c.M, c.N, c.K, c.ldc,
           c.path().name, cudaGetErrorString(e), bad);
    return e == cudaSuccess && bad == 0;
}
#endif

// An error the caller left pending: the call returns its own result, takes
// the path it takes without one, and leaves the error state as a plain launch
// of the caller's own would (a launch leaves a pending error in place; the
// header clears nothing of the caller's). The pending error is a launch the
// caller did not check (more threads per block than any device allows); the
// test first checks it is pending. The one exception, said in the header:
// a process's first call of a variant that needs more than the default
// dynamic shared memory sets the kernel's limit with cudaFuncSetAttribute,
// which clears a pending error; the test warms the variant up first and
// reports what the first call did.
__global__ void unchecked() {}
static bool pending() {
    call c = big();
    if (!c.alloc()) return false;
    const int clean_path = c.path().variant;
    unchecked<<<1, 4096>>>();
    const cudaError_t made = cudaPeekAtLastError();
    if (made == cudaSuccess) {
        printf("pending: a launch of 4096 threads per block left no error pending\n");
        return false;
    }
    unchecked<<<1, 1>>>();
    const cudaError_t plain = cudaGetLastError();
    unchecked<<<1, 4096>>>();
    const cudaError_t first_own = c.run(0);  // the first call: may set the kernel's limit
    const cudaError_t first = cudaGetLastError();
    unchecked<<<1, 4096>>>();
    const int pending_path = c.path().variant;
    const cudaError_t own = c.run(0);
    const cudaError_t after = cudaGetLastError();
    printf("pending: %s left pending; after a plain launch the caller sees %s; after the first "
           "call %s (it returned %s); a later call took variant %d (%d without the error), "
           "returned %s, and the caller then sees %s\n",
           cudaGetErrorString(made), cudaGetErrorString(plain), cudaGetErrorString(first),
           cudaGetErrorString(first_own), pending_path, clean_path, cudaGetErrorString(own),
           cudaGetErrorString(after));
    return first_own == cudaSuccess && own == cudaSuccess && after == plain &&
           pending_path == clean_path;
}

#if !defined(TRUST_PIPELINE)
// A variant with launch().scratch_zero_kept keeps one stream's scratch
// memory between calls (its counters left zero by the kernel, cleared only
// where a call's prefix is longer than the last call's): calls of three
// shapes in turn in one stream (the memory grown, prefixes longer and
// shorter, slices of other tiles left in it), then one call in each of 40
// streams (more than the header keeps memory for): each shape's first
// result is right, and every later one equals it bit for bit.
static bool reuse() {
    std::vector<call> c = {call{{512, 512, 512, 512}}, padded(), call{{256, 256, 16384, 256}}};
    std::vector<std::vector<unsigned char>> init(c.size()), want(c.size());
    for (size_t i = 0; i < c.size(); i++) {
        if (!c[i].alloc()) return false;
        init[i].resize(c[i].lc() * sizeof *c[i].C);
        CHECK(cudaMemcpy(init[i].data(), c[i].C, init[i].size(), cudaMemcpyDeviceToHost));
    }
    std::vector<unsigned char> got;
    int calls = 0, same = 0;
    long wrong = 0;
    auto one = [&](size_t i, cudaStream_t st) -> bool {
        CHECK(cudaMemcpyAsync(c[i].C, init[i].data(), init[i].size(), cudaMemcpyHostToDevice, st));
        CHECK(c[i].run(st));
        got.resize(init[i].size());
        CHECK(cudaMemcpyAsync(got.data(), c[i].C, got.size(), cudaMemcpyDeviceToHost, st));
        CHECK(cudaStreamSynchronize(st));
        calls++;
        if (want[i].empty()) {  // the shape's first call: checked against the sums
            wrong += c[i].wrong_rows(call::tol);
            want[i] = got;
        }
        same += got == want[i];
        return true;
    };
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (size_t i : {0, 1, 2, 0, 2, 1, 0, 2})
        if (!one(i, s)) return false;
    std::vector<cudaStream_t> more(40);
    for (auto &x : more) {
        CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
        if (!one(calls % 3, x)) return false;
    }
    printf("reuse: %d calls in one stream, then one in each of %zu streams: %d equal to their "
           "shape's first, %ld wrong rows in the firsts (%s, %s, %s)\n",
           8, more.size(), same, wrong, c[0].path().name, c[1].path().name, c[2].path().name);
    return same == calls && wrong == 0;
}

// Calls from eight threads at once, 12 each, two shapes in turn: six
// threads in streams of their own, two sharing one (the header's kept
// scratch memory of a stream is used by one call at a time, and a call in
// one stream does not wait for another stream's): every result equals its
// shape's lone first call bit for bit, and that one is right.
static bool contend() {
    const call shapes[2] = {call{{512, 512, 512, 512}}, call{{256, 256, 16384, 256}}};
    std::vector<unsigned char> init[2], want[2];
    const char *names[2];  // the paths of the first calls (shapes[] holds no matrices)
    long wrong = 0;
    for (int i = 0; i < 2; i++) {
        call c = shapes[i];
        if (!c.alloc()) return false;
        names[i] = c.path().name;
        init[i].resize(c.lc() * sizeof *c.C);
        CHECK(cudaMemcpy(init[i].data(), c.C, init[i].size(), cudaMemcpyDeviceToHost));
        CHECK(c.run(0));
        CHECK(cudaDeviceSynchronize());
        wrong += c.wrong_rows(call::tol);
        want[i].resize(init[i].size());
        CHECK(cudaMemcpy(want[i].data(), c.C, want[i].size(), cudaMemcpyDeviceToHost));
    }
    const int n_threads = 8, n_calls = 12;
    std::vector<cudaStream_t> streams(n_threads - 1);
    for (auto &x : streams) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    std::vector<int> same(n_threads, 0), failed(n_threads, 0);
    auto worker = [&](int t) {
        cudaStream_t st = streams[std::min(t, n_threads - 2)];  // threads 6 and 7 share one
        call c[2] = {shapes[0], shapes[1]};
        if (!c[0].alloc() || !c[1].alloc()) return (void)(failed[t] = 1);
        std::vector<unsigned char> got;
        for (int n = 0; n < n_calls; n++) {
            const int i = (t + n) % 2;
            got.resize(init[i].size());
            if (cudaMemcpyAsync(c[i].C, init[i].data(), got.size(), cudaMemcpyHostToDevice, st) ||
                c[i].run(st) ||
                cudaMemcpyAsync(got.data(), c[i].C, got.size(), cudaMemcpyDeviceToHost, st) ||
                cudaStreamSynchronize(st))
                return (void)(failed[t] = 1);
            same[t] += got == want[i];
        }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < n_threads; t++) pool.emplace_back(worker, t);
    for (auto &th : pool) th.join();
    int equal = 0, fails = 0;
    for (int t = 0; t < n_threads; t++) equal += same[t], fails += failed[t];
    printf("contend: %d threads x %d calls (two sharing a stream): %d equal to their shape's first, "
           "%d threads failed a call, %ld wrong rows in the firsts (%s, %s)\n",
           n_threads, n_calls, equal, fails, wrong, names[0], names[1]);
    return equal == n_threads * n_calls && fails == 0 && wrong == 0;
}

// cudaDeviceReset between calls, as a test harness does: what the header
// keeps for a context (its memory pool, a stream's scratch memory, a
// kernel's raised shared memory limit) went with it, and calls in the new
// context are still right, three rounds of two shapes.
static bool reset() {
    long wrong = 0;
    for (int round = 0; round < 3; round++) {
        for (call c : {call{{512, 512, 512, 512}}, call{{256, 256, 16384, 256}}}) {
            if (!c.alloc()) return false;
            CHECK(c.run(0));
            CHECK(cudaDeviceSynchronize());
            wrong += c.wrong_rows(call::tol);
        }
        CHECK(cudaDeviceReset());
    }
    printf("reset: three rounds of 512^3 and 256 x 256 x 16384 calls, a device reset after each: %ld "
           "wrong rows\n",
           wrong);
    return wrong == 0;
}
#endif

int main(int argc, char **argv) {
    skip_without_gpu();
    const char *mode = argc > 1 ? argv[1] : "";
    (void)arch_specific;
    bool ok = !strcmp(mode, "capture")         ? capture()
              : !strcmp(mode, "threads")       ? threads()
              : !strcmp(mode, "streams")       ? streams()
              : !strcmp(mode, "path-tuned")    ? path(true)
              : !strcmp(mode, "path-portable") ? path(false)
              : !strcmp(mode, "padding")       ? padding()
              : !strcmp(mode, "pending")       ? pending()
              : !strcmp(mode, "tall")          ? tall_rows()
              : !strcmp(mode, "blas")          ? blas()
#if !defined(TRUST_PIPELINE)
              : !strcmp(mode, "reuse")         ? reuse()
              : !strcmp(mode, "reset")         ? reset()
              : !strcmp(mode, "contend")       ? contend()
#endif
                                               : (fprintf(stderr, "unknown mode '%s'\n", mode), false);
    return ok ? 0 : 1;
}
