// Tile t of tiles_n x tiles_m in this block's raster order (common.cuh's tile_of on an index).
__device__ __forceinline__ void tile_at(int t, int tiles_n, int tiles_m, int& tm, int& tn) {
    if (kGroup == 0) {
        tm = t / tiles_n;
        tn = t % tiles_n;
        return;
    }
    const int per_group = kGroup * tiles_n, first = t / per_group * kGroup;
    const int rows = min(kGroup, tiles_m - first);
    tm = first + t % per_group % rows;
    tn = t % per_group / rows;
}
