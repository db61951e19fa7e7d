// Vector moves of 1, 2 or 4 floats; the tail of the array (past n) is
// read as 0 and never written.
template <int V> struct vec_t;
template <> struct vec_t<1> { using type = float; };
template <> struct vec_t<2> { using type = float2; };
template <> struct vec_t<4> { using type = float4; };

template <int V>
__device__ __forceinline__ void load_global(const float* __restrict__ in, unsigned long long g,
                                            unsigned long long n, float (&r)[V]) {
    if (g + V <= n) {
        typename vec_t<V>::type v = *reinterpret_cast<const typename vec_t<V>::type*>(in + g);
        const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
        for (int u = 0; u < V; ++u) r[u] = f[u];
    } else {
#pragma unroll
        for (int u = 0; u < V; ++u) r[u] = g + u < n ? in[g + u] : 0.0f;
    }
}

template <int V>
__device__ __forceinline__ void store_smem(float* dst, const float (&r)[V]) {
    typename vec_t<V>::type v;
    float* f = reinterpret_cast<float*>(&v);
#pragma unroll
    for (int u = 0; u < V; ++u) f[u] = r[u];
    *reinterpret_cast<typename vec_t<V>::type*>(dst) = v;
}

template <int V>
__device__ __forceinline__ void load_smem(const float* src, float (&r)[V]) {
    typename vec_t<V>::type v = *reinterpret_cast<const typename vec_t<V>::type*>(src);
    const float* f = reinterpret_cast<const float*>(&v);
#pragma unroll
    for (int u = 0; u < V; ++u) r[u] = f[u];
}

template <int V>
__device__ __forceinline__ void store_global(float* __restrict__ out, unsigned long long g,
                                             unsigned long long n, const float (&r)[V]) {
    if (g + V <= n) {
        typename vec_t<V>::type v;
        float* f = reinterpret_cast<float*>(&v);
#pragma unroll
        for (int u = 0; u < V; ++u) f[u] = r[u];
        *reinterpret_cast<typename vec_t<V>::type*>(out + g) = v;
    } else {
#pragma unroll
        for (int u = 0; u < V; ++u)
            if (g + u < n) out[g + u] = r[u];
    }
}
