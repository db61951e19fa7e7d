# What the CLI test scripts share: sourced as  . "$(dirname "$0")/lib.sh" "$@"
# with the bartune binary and the source root as the script's arguments.
# Sets $bartune, $root and a temporary $tmp (removed on exit), moves to the
# root, and defines fail MESSAGE and skip_without_gpu (exit 77, CTest's
# skip, where the runner finds no GPU).
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
fail() { echo "$*"; exit 1; }
skip_without_gpu() {
    "$bartune" devices >/dev/null 2>&1
    [ $? = 4 ] && { echo "no GPU"; exit 77; }
    return 0
}
