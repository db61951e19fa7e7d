// Vector moves of 1, 2, 4 or 8 floats (8: two float4 accesses); the tail of
// the array (past n) is read as 0 and never written. Loads assume `in` is
// 16-byte aligned (the host entry peels the head); stores check `out`, which
// a caller may pass at any float offset, and go one float at a time where it
// is not aligned for the vector.
template <int V> struct vec_t { using type = float4; };  // V = 8: moved in halves
template <> struct vec_t<1> { using type = float; };
template <> struct vec_t<2> { using type = float2; };
__host__ __device__ constexpr int vec_width(int v) { return v > 4 ? 4 : v; }

template <int V>
__device__ __forceinline__ void load_global(const float* __restrict__ in, unsigned long long g,
                                            unsigned long long n, float (&r)[V]) {
    constexpr int W = vec_width(V);
    if (g + V <= n) {
#pragma unroll
        for (int h = 0; h < V; h += W) {
            typename vec_t<V>::type v = *reinterpret_cast<const typename vec_t<V>::type*>(in + g + h);
            const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
            for (int u = 0; u < W; ++u) r[h + u] = f[u];
        }
    } else {
#pragma unroll
        for (int u = 0; u < V; ++u) r[u] = g + u < n ? in[g + u] : 0.0f;
    }
}

template <int V>
__device__ __forceinline__ void store_smem(float* dst, const float (&r)[V]) {
    constexpr int W = vec_width(V);
#pragma unroll
    for (int h = 0; h < V; h += W) {
        typename vec_t<V>::type v;
        float* f = reinterpret_cast<float*>(&v);
#pragma unroll
        for (int u = 0; u < W; ++u) f[u] = r[h + u];
        *reinterpret_cast<typename vec_t<V>::type*>(dst + h) = v;
    }
}

template <int V>
__device__ __forceinline__ void load_smem(const float* src, float (&r)[V]) {
    constexpr int W = vec_width(V);
#pragma unroll
    for (int h = 0; h < V; h += W) {
        typename vec_t<V>::type v = *reinterpret_cast<const typename vec_t<V>::type*>(src + h);
        const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
        for (int u = 0; u < W; ++u) r[h + u] = f[u];
    }
}

//% if cvec == 1 then
// One float per store: always aligned, so no test in the hot loop (measured
// on the H200: the test cost the one-chain lockstep kernel 16%).
template <int V>
__device__ __forceinline__ void store_global(float* __restrict__ out, unsigned long long g,
                                             unsigned long long n, const float (&r)[V]) {
#pragma unroll
    for (int u = 0; u < V; ++u)
        if (g + u < n) out[g + u] = r[u];
}
//% else
template <int V>
__device__ __forceinline__ void store_global(float* __restrict__ out, unsigned long long g,
                                             unsigned long long n, const float (&r)[V]) {
    constexpr int W = vec_width(V);
    if (g + V <= n && reinterpret_cast<uintptr_t>(out + g) % (W * sizeof(float)) == 0) {
#pragma unroll
        for (int h = 0; h < V; h += W) {
            typename vec_t<V>::type v;
            float* f = reinterpret_cast<float*>(&v);
#pragma unroll
            for (int u = 0; u < W; ++u) f[u] = r[h + u];
            *reinterpret_cast<typename vec_t<V>::type*>(out + g + h) = v;
        }
    } else {
#pragma unroll
        for (int u = 0; u < V; ++u)
            if (g + u < n) out[g + u] = r[u];
    }
}
//% end
