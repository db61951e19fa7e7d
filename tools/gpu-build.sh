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
# cubins compiled ahead on another machine (tools/precompile.sh), where the call carries them:
# into the CLI's compile cache, entries it already has kept
if [ -f .landcache.tar.xz ]; then
    mkdir -p build/variants && tar xJf .landcache.tar.xz --skip-old-files -C build/variants &&
        log "$(tar tJf .landcache.tar.xz | grep -c '\.cubin$') cubins compiled ahead (.landcache.tar.xz)"
fi
