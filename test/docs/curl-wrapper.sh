# Sourced before a Markdown file's examples run: a `curl` that records each answer's status and fails the
# example when the status is not the one its block expects (DOCS_EXPECT: "2xx" or an exact status).
# The user's own --write-out is kept: the status marker is appended to it, on stderr.

curl() {
  local args=() wrote=0 marker='%{stderr}DOCS_STATUS=%{http_code}\n'
  while (($#)); do
    if [[ $1 == -w || $1 == --write-out ]]; then
      args+=("$1" "$2$marker")
      wrote=1
      shift 2
    else
      args+=("$1")
      shift
    fi
  done
  ((wrote)) || args+=(--write-out "$marker")
  local err rc status
  err=$(mktemp)
  command curl "${args[@]}" 2>"$err" && rc=0 || rc=$?
  status=$(sed -n 's/^DOCS_STATUS=//p' "$err" | tail -n 1)
  grep -v '^DOCS_STATUS=' "$err" >&2 || true
  rm -f "$err"
  echo "${status:-none} curl ${args[*]}" >>"$DOCS_CURL_LOG"
  if ((rc != 0)); then
    echo "docs example failed: curl exited $rc" >&2
    return 1
  fi
  if [[ $DOCS_EXPECT == 2xx && $status != 2?? ]] || [[ $DOCS_EXPECT != 2xx && $status != "$DOCS_EXPECT" ]]; then
    echo "docs example answered $status, the block expects $DOCS_EXPECT" >&2
    return 1
  fi
}
