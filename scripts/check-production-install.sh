#!/usr/bin/env bash
# Proves that a production install starts, as the Docker image runs it: a clean copy of the
# committed files plus the build output (dist/), `npm ci --omit=dev` (no tsx, vitest or eslint), then
# `seqflow --version` and a `serve` on the embedded PostgreSQL that answers /api/v1/health, on the
# supported runtime (Node 24: the checkout's `node` dev dependency, or SEQFLOW_NODE), with no
# runtime warning at start.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/cli/main.js ] || { echo "no dist/: run npm run build first" >&2; exit 1; }
node_bin="${SEQFLOW_NODE:-$PWD/node_modules/node/bin/node}"
echo "runtime: $("$node_bin" --version)"

copy=$(mktemp -d /tmp/seqflow-prod-XXXXXX)
chmod 755 "$copy"
server=""
cleanup() {
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  rm -rf "$copy"
}
trap cleanup EXIT

git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -x -C "$copy"
cp -r dist "$copy/dist"
cd "$copy"
# npm itself on that runtime too, as the README's install does: the engines check sees Node 24.
PATH="$(dirname "$node_bin"):$PATH" npm ci --omit=dev --no-audit --no-fund
# (TypeScript itself is there: a required peer dependency of @trpc/server; the dev-only tools are not.)
if [ -e node_modules/tsx ] || [ -e node_modules/vitest ] || [ -e node_modules/eslint ]; then echo "the production install has development dependencies" >&2; exit 1; fi

version=$("$node_bin" bin/seqflow.js --version)
echo "seqflow --version: $version"

port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
env -u DATABASE_URL SEQFLOW_DATA_DIR="$copy/data" PORT="$port" SEQFLOW_CONSOLE_PORT=0 SEQFLOW_DEMO=false LOG_LEVEL=warn "$node_bin" bin/seqflow.js serve > "$copy/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/api/v1/health" > "$copy/health.json" 2>/dev/null; then
    echo "production install serves /api/v1/health: $(cat "$copy/health.json")"
    if grep -qi "unsupported runtime\|EBADENGINE" "$copy/serve.log"; then
      echo "the production install warned about its runtime at start:" >&2
      cat "$copy/serve.log" >&2
      exit 1
    fi
    exit 0
  fi
  kill -0 "$server" 2>/dev/null || break
  sleep 1
done
echo "the production install did not answer /api/v1/health; its log:" >&2
cat "$copy/serve.log" >&2
exit 1
