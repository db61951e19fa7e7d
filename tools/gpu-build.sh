# What the device-call scripts share (sourced): $out (the call's $OUT), log,
# the unpacked Debian packages, and a build of bartune; $b is the CLI.
out=${OUT:-/tmp/out}
mkdir -p "$out"
log() { echo "== $* ($(date +%T))"; }
. .deps/unpack-debs.sh >/dev/null 2>&1
log build
cmake -S . -B build -G Ninja >"$out/build.log" 2>&1 && cmake --build build >>"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
b=./build/bartune
