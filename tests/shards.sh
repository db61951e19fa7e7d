#!/usr/bin/env bash
# Shards and merge with the fake runner (no GPU): the union of N shards is
# the unsharded run, nothing twice, no cubin compiled by two shards; merge
# is idempotent, refuses a foreign device key (writing nothing), and emit
# works from its output. Then tools/slurm-tune.sh through a stand-in sbatch
# that runs the array's tasks and the merge job here, in order.
. "$(dirname "$0")/lib.sh" "$@"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 blocks_per_sm=2"
export FAKE_RUNNER_DELAY=0.01
run() { # NAME [ARGS...]
    name=$1
    shift
    "$bartune" run gen/pipeline.lua $sel --size n=1000 --runner "$root/tests/fake_runner.sh" \
        --results "$tmp/$name" --kernels "$tmp/k" --cache "$tmp/cache-$name" --no-emit "$@" \
        >/dev/null 2>"$tmp/$name.err" || { cat "$tmp/$name.err"; fail "run $name failed"; }
}
ids() { grep -ho '"id":"[0-9a-f]*"' "$@" | sort; }
run all
for i in 0 1 2; do run s$i --shard $i/3; done
all=$tmp/all/fake-gpu-sm90/pipeline.jsonl
ids "$tmp"/s?/*/pipeline.jsonl >"$tmp/union"
diff <(ids "$all") "$tmp/union" >/dev/null || fail "the shards' union differs from the whole run"
[ "$(uniq -d "$tmp/union" | wc -l)" = 0 ] || fail "a configuration measured by two shards"
for i in 0 1 2; do
    [ "$(ls "$tmp/cache-s$i"/*.cubin | wc -l)" -ge 1 ] || fail "shard $i compiled nothing"
done
[ "$(ls "$tmp"/cache-s?/*.cubin | xargs -n1 basename | sort | uniq -d | wc -l)" = 0 ] ||
    fail "a cubin compiled by two shards"

"$bartune" merge "$tmp"/s?/*/pipeline.jsonl --results "$tmp/m" 2>"$tmp/merge.err" ||
    { cat "$tmp/merge.err"; fail "merge failed"; }
merged=$tmp/m/fake-gpu-sm90/pipeline.jsonl
diff <(ids "$all") <(ids "$merged") >/dev/null || fail "merged records differ from the whole run"
cp "$merged" "$tmp/before"
"$bartune" merge "$tmp"/s?/*/pipeline.jsonl "$merged" --results "$tmp/m" 2>/dev/null || fail "merge again failed"
cmp -s "$merged" "$tmp/before" || fail "merging again changed the file"
# a foreign device key among the files: refused, nothing written
sed 's/"name":"Fake GPU"/"name":"Other GPU"/' "$tmp/s1/fake-gpu-sm90/pipeline.jsonl" >"$tmp/other.jsonl"
"$bartune" merge "$tmp/s0/fake-gpu-sm90/pipeline.jsonl" "$tmp/other.jsonl" --results "$tmp/m2" 2>"$tmp/err"
[ $? = 3 ] || fail "a foreign key was merged"
grep -q "other.jsonl.*other-gpu-sm90" "$tmp/err" || fail "foreign key: $(cat "$tmp/err")"
[ ! -e "$tmp/m2" ] || fail "a refused merge wrote something"
"$bartune" merge "$tmp/nothing.jsonl" --results "$tmp/m2" 2>/dev/null
[ $? = 3 ] || fail "a missing file was merged"
"$bartune" emit gen/pipeline.lua --results "$tmp/m" --kernels "$tmp/k" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "emit after merge failed"; }
[ -s "$tmp/k/pipeline.cuh" ] || fail "emit after merge wrote no header"
"$bartune" run gen/pipeline.lua --shard 0/2 --strategy ils >/dev/null 2>&1
[ $? = 2 ] || fail "--shard with --strategy accepted"
for bad in 2/2 -1/2 1 a/b 0/0; do
    "$bartune" run gen/pipeline.lua --shard "$bad" >/dev/null 2>&1
    [ $? = 2 ] || fail "--shard $bad accepted"
done

# tools/slurm-tune.sh, with a stand-in sbatch
mkdir -p "$tmp/bin" "$tmp/cluster"
cat >"$tmp/bin/sbatch" <<'SB'
#!/usr/bin/env bash
# stand-in: runs an array's tasks one after another, then any other job
array= out=/dev/null wrap=
for a; do
    case $a in
    --array=*) array=${a#--array=} ;;
    --output=*) out=${a#--output=} ;;
    --wrap=*) wrap=${a#--wrap=} ;;
    esac
done
echo "$*" >>"$SBATCH_LOG"
if [ -n "$array" ]; then
    for i in $(seq "${array%-*}" "${array#*-}"); do
        SLURM_ARRAY_TASK_ID=$i bash -c "$wrap" >"${out//%a/$i}" 2>&1 || exit 1
    done
else
    bash -c "$wrap" >"$out" 2>&1 || exit 1
fi
echo $((RANDOM + 1000))
SB
chmod +x "$tmp/bin/sbatch"
cd "$tmp/cluster"
PATH=$tmp/bin:$PATH SBATCH_LOG=$tmp/sbatch.log BARTUNE=$bartune \
    BARTUNE_ARGS="$sel --size n=1000 --runner $root/tests/fake_runner.sh" \
    BARTUNE_MERGE_ARGS="--results $tmp/cluster/results --kernels $tmp/cluster/kernels" \
    "$root/tools/slurm-tune.sh" "$root/gen/pipeline.lua" 3 --partition=gpu >"$tmp/slurm.out" 2>&1 ||
    { cat "$tmp/slurm.out" "$tmp"/cluster/shards/*/*.log; fail "slurm-tune.sh failed"; }
grep -q -- "--array=0-2" "$tmp/sbatch.log" || fail "no array of 3: $(cat "$tmp/sbatch.log")"
grep -q -- "--dependency=afterok:" "$tmp/sbatch.log" || fail "the merge does not wait for the array"
diff <(ids "$all") <(ids results/fake-gpu-sm90/pipeline.jsonl) >/dev/null ||
    fail "slurm-tune.sh: merged results differ from the whole run"
[ -s kernels/pipeline.cuh ] || fail "slurm-tune.sh emitted no header"
# a space whose name is not its file's (tests/toy/axpy.lua holds axpy2d)
mkdir -p "$tmp/toy" && cd "$tmp/toy" || exit 1
PATH=$tmp/bin:$PATH SBATCH_LOG=$tmp/sbatch.log BARTUNE=$bartune \
    BARTUNE_ARGS="--runner $root/tests/fake_runner.sh" \
    BARTUNE_MERGE_ARGS="--results $tmp/toy/results --kernels $tmp/toy/kernels" \
    "$root/tools/slurm-tune.sh" "$root/tests/toy/axpy.lua" 2 >"$tmp/toy.out" 2>&1 ||
    { cat "$tmp/toy.out" "$tmp"/toy/shards/*/*.log; fail "slurm-tune.sh failed on tests/toy/axpy.lua"; }
[ -s results/fake-gpu-sm90/axpy2d.jsonl ] && [ -s kernels/axpy2d.cuh ] ||
    fail "slurm-tune.sh on axpy.lua: no merged axpy2d results or header"
exit 0
