#!/usr/bin/env bash
# Tunes one space across a Slurm cluster: a job array of SHARDS tasks, each
# measuring its 1/SHARDS of the space (bartune run --shard I/N, on every GPU
# of its node), then one job, started when all have succeeded, that merges
# the shards' results per device key into results/ and emits the headers.
#
#   tools/slurm-tune.sh SPACE SHARDS [SBATCH OPTION...]
#   tools/slurm-tune.sh gen/pipeline.lua 8 --partition=gpu --gres=gpu:1 --time=1:00:00
#
# Run it from the checkout (on a file system the nodes share), after
# building. BARTUNE (default build/bartune) names the binary; BARTUNE_ARGS
# adds options to every run (k=v filters, --size, --reps ...), and
# BARTUNE_MERGE_ARGS to the merge and emit step (--results DIR ...). Shards write
# to shards/<job>/<task>/ and keep their own compile caches, so a failed
# task can be run again alone: sbatch --array=<task> ... with the same line.
set -eu
[ $# -ge 2 ] || { sed -n '2,18p' "$0" >&2; exit 2; }
space=$1 shards=$2
shift 2
case $shards in '' | *[!0-9]* | 0) echo "slurm-tune: SHARDS must be a count >= 1, got '$shards'" >&2; exit 2 ;; esac
[ -f "$space" ] || { echo "slurm-tune: no space file $space" >&2; exit 2; }
bartune=${BARTUNE:-build/bartune}
[ -x "$bartune" ] || { echo "slurm-tune: $bartune is not built (cmake --build build)" >&2; exit 2; }
args=${BARTUNE_ARGS:-}
margs=${BARTUNE_MERGE_ARGS:-}
# the job's name only: results files are named after space{ name = ... },
# which need not be the file's (tests/toy/axpy.lua holds space axpy2d), so
# the merge takes each shard's *.jsonl (a shard's folder holds this space alone)
name=$(basename "$space" .lua)
out=shards/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$out"

# Paths go into the jobs' command lines quoted (%q), so spaces survive.
q() { printf '%q' "$1"; }
task="$(q "$bartune") run $(q "$space") $args --gpus all --no-emit --shard \$SLURM_ARRAY_TASK_ID/$shards \
--results $(q "$out")/\$SLURM_ARRAY_TASK_ID --cache $(q "$out")/cache-\$SLURM_ARRAY_TASK_ID"
array=$(sbatch --parsable --job-name="bartune-$name" --array="0-$((shards - 1))" \
    --output="$out/%a.log" "$@" --wrap="$task")
array=${array%%;*}
# One merge per device key found among the shards (nodes of several kinds
# give several keys), then the headers for all of them.
merge="set -e; for key in \$(ls -d $(q "$out")/[0-9]*/*/ | xargs -n1 basename | sort -u); do \
$(q "$bartune") merge $(q "$out")/[0-9]*/\$key/*.jsonl $margs; done; \
$(q "$bartune") emit $(q "$space") $margs"
final=$(sbatch --parsable --job-name="bartune-$name-merge" --dependency="afterok:$array" \
    --output="$out/merge.log" "$@" --wrap="$merge")
echo "slurm-tune: array job $array ($shards shards) and merge job ${final%%;*}; logs in $out/"
