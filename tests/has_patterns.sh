# What the kind tests share: sourced, it defines
#   has_patterns NAME FILE MUST... -- MUSTNOT...
# which checks that FILE (PTX or SASS of one kind) matches every extended
# regex before "--" and none after it, and sets fail=1 with a line naming
# the kind and the pattern where not.
has_patterns() {
    local name=$1 file=$2 want=1
    shift 2
    for pat in "$@"; do
        if [ "$pat" = -- ]; then want=0; continue; fi
        if grep -qE -- "$pat" "$file"; then
            [ $want = 1 ] || { echo "$name: has '$pat', which belongs to another kind"; fail=1; }
        else
            [ $want = 0 ] || { echo "$name: lacks '$pat'"; fail=1; }
        fi
    done
}
