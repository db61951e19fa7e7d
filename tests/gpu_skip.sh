# skip_without_gpu [BARTUNE]: exit 77 (CTest's skip) where the runner finds
# no GPU (`bartune devices` exits 4). Sourced by lib.sh (BARTUNE defaults to
# its $bartune) and by the GPU tests that build before they run.
skip_without_gpu() {
    "${1:-$bartune}" devices >/dev/null 2>&1
    [ $? = 4 ] && { echo "no GPU"; exit 77; }
    return 0
}
