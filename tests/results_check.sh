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
    if [ "$lines" != "$ids" ]; then
        echo "$file: $lines records but $ids distinct ids; the repeated ones (status, date, verified, message):" >&2
        grep -o '"id":"[0-9a-f]*"' "$file" | sort | uniq -d | while read -r dup; do
            grep -F "$dup" "$file" | while IFS= read -r rec; do
                echo "  $dup $(grep -o '"status":"[a-z_]*"\|"date":"[^"]*"\|"verified":"[^"]*"\|"message":"[^"]\{0,200\}' <<<"$rec" | tr '\n' ' ')" >&2
            done
        done
        return 1
    fi
    echo "$lines"
}
# records_text FILE: the text of a results file's records, its sealed history
# (FILE.gz, from bartune seal) first, as bartune reads them.
records_text() {
    if [ -f "$1.gz" ]; then gunzip -c "$1.gz" || return 1; fi
    cat "$1"
}
