#!/usr/bin/env bash
# ElasticMQ, an SQS-compatible server, for the SQS destination's tests and the bench's destination
# probe: its jars come from Maven Central (see pom.xml) into a cache outside the repo. Needs Java 17+
# and Maven.
#
# Usage: bash scripts/elasticmq/elasticmq.sh {fetch|classpath}
#
#   fetch      download the jars once (a repeat run finds them in the cache)
#   classpath  fetch, then print the classpath to start org.elasticmq.server.Main with
#
# Each test file and the bench's destination probe start their own server on a free port
# (scripts/brokers/elasticmq.mjs), so this script starts nothing and no state is shared between runs.
#
# Environment:
#   GATEWAY_ELASTICMQ_HOME  jar cache root  [${XDG_CACHE_HOME:-$HOME/.cache}/gateway-elasticmq]
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
POM="$SCRIPT_DIR/pom.xml"
VERSION="$(sed -n 's:.*<elasticmq.version>\(.*\)</elasticmq.version>.*:\1:p' "$POM" | head -n1)"
CACHE_ROOT="${GATEWAY_ELASTICMQ_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/gateway-elasticmq}"
VERSION_DIR="$CACHE_ROOT/$VERSION"
LIBS_DIR="$VERSION_DIR/libs"
MARKER="$VERSION_DIR/.complete"

log() { printf 'elasticmq.sh: %s\n' "$*" >&2; }
die() { printf 'elasticmq.sh: ERROR: %s\n' "$*" >&2; exit 1; }

[[ -n "$VERSION" ]] || die "cannot read <elasticmq.version> from $POM"
pom_sum() { sha256sum "$POM" | cut -d' ' -f1; }
jars_complete() { [[ -f "$MARKER" && "$(cat "$MARKER")" == "$(pom_sum)" && -d "$LIBS_DIR" ]]; }

cmd_fetch() {
  jars_complete && return 0
  command -v mvn >/dev/null 2>&1 || die "'mvn' not found on PATH (install Maven 3.8+)"
  command -v java >/dev/null 2>&1 || die "'java' not found on PATH (install a JDK 17+)"
  mkdir -p "$VERSION_DIR"
  # Concurrent test files fetch once: the second waits for the first.
  exec 9>"$VERSION_DIR/.lock"
  flock 9
  jars_complete && return 0
  log "fetching ElasticMQ $VERSION jars from Maven Central into $LIBS_DIR ..."
  local tmp
  tmp="$(mktemp -d "$VERSION_DIR/libs.tmp.XXXXXX")"
  if ! mvn -B -q -f "$POM" dependency:copy-dependencies \
        -DoutputDirectory="$tmp" -DincludeScope=runtime >"$tmp.log" 2>&1; then
    tail -n 40 "$tmp.log" >&2 || true
    rm -rf "$tmp" "$tmp.log"
    die "mvn dependency:copy-dependencies failed (see output above)"
  fi
  rm -f "$tmp.log"
  [[ -f "$tmp/elasticmq-server_2.13-$VERSION.jar" ]] || { rm -rf "$tmp"; die "elasticmq-server jar missing after mvn copy"; }
  rm -rf "$LIBS_DIR"
  mv "$tmp" "$LIBS_DIR"
  pom_sum >"$MARKER"
  log "fetched $(ls "$LIBS_DIR" | wc -l) jars ($(du -sh "$LIBS_DIR" | cut -f1))"
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  classpath) cmd_fetch && printf '%s/*\n' "$LIBS_DIR" ;;
  *) die "usage: $0 {fetch|classpath}" ;;
esac
