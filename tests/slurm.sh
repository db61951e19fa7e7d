#!/usr/bin/env bash
# tools/slurm-tune.sh on a real one-node Slurm (Debian's slurmctld, slurmd,
# munge) with the fake runner: the array's shards run as Slurm tasks, the
# merge job waits for them, and the merged results equal an unsharded run.
# The daemons are this test's own (config, key, socket, ports and state in a
# temporary folder), started and stopped here. Exit 77 (skipped) without the
# packages or without root (slurmd must be root to start jobs).
set -u
bartune=$1 root=$2
for t in slurmctld slurmd munged sbatch squeue; do
    command -v $t >/dev/null || PATH=$PATH:/usr/sbin:/sbin
    command -v $t >/dev/null || { echo "no $t (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "slurmd needs root"; exit 77; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
cleanup() {
    for p in slurmd slurmctld munged; do [ -f "$tmp/$p.pid" ] && kill "$(cat "$tmp/$p.pid")" 2>/dev/null; done
    sleep 1
    for p in slurmd slurmctld munged; do [ -f "$tmp/$p.pid" ] && kill -9 "$(cat "$tmp/$p.pid")" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "$*"; for f in "$tmp"/log/*; do echo "== $f"; tail -20 "$f"; done; exit 1; }
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/work"
# free ports for slurmctld and slurmd
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])' 2>/dev/null || echo 16817)
host=$(hostname -s)
head -c 1024 /dev/urandom >"$tmp/munge.key"
chmod 400 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.socket" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge.seed" 2>"$tmp/log/munged.err" ||
    { echo "munged does not start here: $(cat "$tmp/log/munged.err")"; exit 77; }
cat >"$tmp/slurm.conf" <<CONF
ClusterName=bartune-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld 2>>"$tmp/log/start.err" && slurmd 2>>"$tmp/log/start.err" ||
    { echo "Slurm does not start here: $(cat "$tmp/log/start.err")"; exit 77; }
for _ in $(seq 200); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 0.2; done
# a node that never registers is this machine's doing (hostname, network), not the script's
sinfo -h -o %T | grep -q idle || { echo "the one-node Slurm did not come up here: $(tail -3 "$tmp/log/slurmd.log")"; exit 77; }

sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 blocks_per_sm=2"
export FAKE_RUNNER_DELAY=0.01
"$bartune" run "$root/gen/pipeline.lua" $sel --size n=1000 --runner "$root/tests/fake_runner.sh" \
    --results "$tmp/all" --kernels "$tmp/k0" --cache "$tmp/c0" --no-emit >/dev/null 2>&1 || fail "unsharded run failed"
cd "$tmp/work"
BARTUNE=$bartune BARTUNE_ARGS="$sel --size n=1000 --runner $root/tests/fake_runner.sh" \
    BARTUNE_MERGE_ARGS="--results $tmp/work/results --kernels $tmp/work/kernels" \
    "$root/tools/slurm-tune.sh" "$root/gen/pipeline.lua" 3 >"$tmp/submit.out" 2>&1 || fail "slurm-tune.sh: $(cat "$tmp/submit.out")"
# wait for the merge job: it is the last thing, and writes the header
for _ in $(seq 600); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.5; done
[ -z "$(squeue -h)" ] || fail "jobs still queued after 5 minutes: $(squeue)"
ids() { grep -ho '"id":"[0-9a-f]*"' "$@" | sort; }
diff <(ids "$tmp"/all/*/pipeline.jsonl) <(ids results/*/pipeline.jsonl 2>/dev/null) >/dev/null ||
    fail "merged results differ from the unsharded run: $(cat shards/*/merge.log 2>/dev/null)"
[ -s kernels/pipeline.cuh ] || fail "no header after the merge job: $(cat shards/*/merge.log)"
echo "one-node Slurm: 3 shard tasks and the merge job gave the unsharded run's $(ids results/*/pipeline.jsonl | wc -l) records"
