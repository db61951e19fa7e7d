# Sourced by tests: checks on a results file.
# records_ok FILE: every line is a record (bartune show reads it) and no
# measurement id appears twice. Prints the record count.
records_ok() {
    local file=$1 lines ids
    [ -s "$file" ] || { echo 0; return 0; }
    "$bartune" show gen/pipeline.lua --records "$file" >/dev/null 2>"$tmp/show.err" ||
        { echo "results file does not parse: $(cat "$tmp/show.err")" >&2; return 1; }
    lines=$(grep -c . "$file")
    ids=$(grep -o '"id":"[0-9a-f]*"' "$file" | sort -u | wc -l)
    [ "$lines" = "$ids" ] || { echo "$file: $lines records but $ids distinct ids" >&2; return 1; }
    echo "$lines"
}
