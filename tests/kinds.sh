#!/usr/bin/env bash
# Each barrier and producer kind is what its name says: a rendered variant's
# PTX (mode ptx, CI) or SASS (mode sass, GPU machine: cuobjdump) holds that
# kind's instructions and none of another kind's.
set -u
bartune=$1 root=$2 nvcc=$3 mode=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
if [ "$mode" = sass ]; then
    command -v cuobjdump >/dev/null || { echo "no cuobjdump here"; exit 77; }
    "$bartune" devices >/dev/null 2>&1; [ $? = 4 ] && { echo "no GPU"; exit 77; }
fi
fail=0
. "$root/tests/has_patterns.sh"
# check NAME SELECTION MUST... -- MUSTNOT...
check() {
    local name=$1 sel=$2; shift 2
    local staged="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4"
    case $sel in barrier=none*) staged="consumer_warps=4 cvec=4 chunk=stride prefetch=0" ;; esac
    case $sel in *syncthreads*|*cuda_barrier*) staged="$staged form=tuned" ;; esac
    case $sel in *mbarrier*) staged="$staged release=thread" ;; esac
    "$bartune" render gen/pipeline.lua $staged $sel >"$tmp/$name.cu" 2>"$tmp/$name.err" ||
        { echo "$name: render failed: $(cat "$tmp/$name.err")"; fail=1; return; }
    if [ "$mode" = ptx ]; then
        "$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/$name.txt" "$tmp/$name.cu" || { fail=1; return; }
    else
        "$nvcc" -cubin -arch=sm_90 -std=c++17 -o "$tmp/$name.cubin" "$tmp/$name.cu" || { fail=1; return; }
        cuobjdump --dump-sass "$tmp/$name.cubin" >"$tmp/$name.txt"
    fi
    has_patterns "$name ($mode)" "$tmp/$name.txt" "$@"
}
if [ "$mode" = ptx ]; then
    check syncthreads "barrier=syncthreads producer=regs" 'bar\.sync[[:space:]]+0;' -- 'bar\.arrive' 'mbarrier' 'cp\.async'
    check named "barrier=named producer=regs" 'bar\.arrive' 'bar\.sync' -- 'mbarrier' 'cp\.async'
    check cuda_barrier "barrier=cuda_barrier producer=regs" 'mbarrier\.arrive' 'mbarrier\.try_wait\.shared' -- 'try_wait\.parity' 'bar\.arrive' 'cp\.async'
    check mbarrier "barrier=mbarrier producer=regs" 'mbarrier\.init\.shared::cta' 'mbarrier\.try_wait\.parity' 'mbarrier\.arrive' -- 'bar\.arrive' 'cp\.async' 'expect_tx'
    check regs "barrier=mbarrier producer=regs" 'ld\.global(\.nc)?\.v4\.f32' 'st\.shared\.v4\.f32' -- 'cp\.async'
    check cp_async "barrier=mbarrier producer=cp_async" 'cp\.async\.cg\.shared\.global' 'cp\.async\.mbarrier\.arrive\.noinc' -- 'cp\.async\.bulk' 'expect_tx'
    check cp_async_group "barrier=named producer=cp_async" 'cp\.async\.cg\.shared\.global' 'cp\.async\.wait_group' -- 'cp\.async\.bulk' 'mbarrier'
    check bulk "barrier=mbarrier producer=bulk" 'cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes' 'mbarrier\.arrive\.expect_tx' -- 'cp\.async\.cg' 'bar\.arrive'
    check none "barrier=none" 'fma\.rn\.f32' -- 'bar\.sync' 'mbarrier' 'cp\.async' 'st\.shared'
else
    check syncthreads "barrier=syncthreads producer=regs" 'BAR\.SYNC' -- 'BAR\.ARV' 'SYNCS' 'LDGSTS' 'UBLKCP'
    check named "barrier=named producer=regs" 'BAR\.ARV' 'BAR\.SYNC' -- 'SYNCS' 'LDGSTS' 'UBLKCP'
    check cuda_barrier "barrier=cuda_barrier producer=regs" 'SYNCS\.ARRIVE' 'SYNCS\.PHASECHK' -- 'BAR\.ARV' 'LDGSTS' 'UBLKCP'
    check mbarrier "barrier=mbarrier producer=regs" 'SYNCS\.ARRIVE' 'SYNCS\.PHASECHK\.TRANS64\.TRYWAIT' -- 'BAR\.ARV' 'LDGSTS' 'UBLKCP'
    check cp_async "barrier=mbarrier producer=cp_async" 'LDGSTS' 'ARRIVES\.LDGSTSBAR|LDGDEPBAR|ARRIVES' -- 'UBLKCP' 'BAR\.ARV'
    check bulk "barrier=mbarrier producer=bulk" 'UBLKCP' 'SYNCS\.ARRIVE\.TRANS64' -- 'LDGSTS' 'BAR\.ARV'
    check none "barrier=none" 'FFMA' -- 'BAR\.SYNC' 'SYNCS' 'LDGSTS' 'UBLKCP' 'STS'
fi
[ $fail = 0 ] && echo "all kinds match ($mode)"
exit $fail
