# What the CLI test scripts share: sourced as  . "$(dirname "$0")/lib.sh" "$@"
# with the bartune binary and the source root as the script's arguments.
# Sets $bartune, $root and a temporary $tmp (removed on exit), moves to the
# root, and defines fail MESSAGE and skip_without_gpu (tests/gpu_skip.sh).
set -u
bartune=$1 root=$2
. "$(dirname "${BASH_SOURCE[0]}")/gpu_skip.sh" # before the cd: the path may be relative
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
fail() { echo "$*"; exit 1; }
