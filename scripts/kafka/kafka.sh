#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft, combined broker+controller) for tests.
# The broker is assembled from Maven Central jars (see pom.xml): needs Java 17+,
# Maven and the repo's node_modules (kafkajs, for the readiness probe).
#
# Usage: bash scripts/kafka/kafka.sh {fetch|start|stop|status|release}
#
#   start    start a fresh broker, or print "reused" if one already answers
#   stop     stop the broker started by this script (pid file)
#   status   exit 0 if a broker answers on KAFKA_PORT
#   release  (test runs) drop the lease KAFKA_LEASE; stop the broker only if a
#            leased run started it and no other live lease remains
#
# Concurrent callers (several vitest runs on one machine) are serialised with a
# lock in the state dir. A test run passes KAFKA_LEASE=<its pid> to start and
# release, so one run's teardown never stops a broker another run still uses,
# and a broker started by hand (no KAFKA_LEASE) is never stopped by a test run.
#
# Environment:
#   KAFKA_PORT             client (PLAINTEXT) port          [19092]
#   KAFKA_CONTROLLER_PORT  KRaft controller port            [19093]
#   KAFKA_STATE_DIR        config, data, logs, pid, leases  [$GATEWAY_KAFKA_HOME/state-<port>]
#   GATEWAY_KAFKA_HOME     jar cache root (outside the repo)
#                          [${XDG_CACHE_HOME:-$HOME/.cache}/gateway-kafka]
#   KAFKA_START_TIMEOUT    seconds to wait for readiness    [60]
#   KAFKA_HEAP_OPTS        JVM heap flags                   [-Xms256m -Xmx512m]
#   KAFKA_JVM_OPTS         other JVM flags                  [-XX:TieredStopAtLevel=1]
#   KAFKA_LEASE            lease id (pid of the test runner) for start/release
#   KAFKA_EXTRA_CONFIG     server.properties lines appended last (a later key wins),
#                          e.g. SASL or SSL listeners beside the PLAINTEXT one  []
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
POM="$SCRIPT_DIR/pom.xml"

KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM" | head -n1)"
KAFKA_PORT="${KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
CACHE_ROOT="${GATEWAY_KAFKA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/gateway-kafka}"
# The broker's port is machine-wide, so its state (pid file, leases) is too: checkouts of the
# project on one machine (clones, worktrees) share the broker and its leases instead of stopping
# it under each other.
STATE_DIR="${KAFKA_STATE_DIR:-$CACHE_ROOT/state-$KAFKA_PORT}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-60}"
HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
# The broker shares two cores with the gateway's processes and is started fresh for each run: the
# C1 compiler alone gives it compiled code within seconds, where C2's compilations took half its CPU
# for the first minutes (measured in the commit that made this).
JVM_OPTS="${KAFKA_JVM_OPTS--XX:TieredStopAtLevel=1}"

VERSION_DIR="$CACHE_ROOT/$KAFKA_VERSION"
LIBS_DIR="$VERSION_DIR/libs"
MARKER="$VERSION_DIR/.complete"
PID_FILE="$STATE_DIR/kafka.pid"
PROPS="$STATE_DIR/server.properties"
LOG4J="$STATE_DIR/log4j.properties"
LOG_DIR="$STATE_DIR/logs"
DATA_DIR="$STATE_DIR/data"
BROKERS="127.0.0.1:$KAFKA_PORT"
LEASE_DIR="$STATE_DIR/leases"
AUTO_STOP="$STATE_DIR/auto-stop"
LEASE="${KAFKA_LEASE:-}"

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { printf 'kafka.sh: ERROR: %s\n' "$*" >&2; exit 1; }

need() {
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH ($2)"
}

# Serialise start/stop/release on this state dir (fd 8; the broker must not
# inherit it, see the 8>&- 9>&- on the java command line).
lock_state() {
  mkdir -p "$STATE_DIR"
  if command -v flock >/dev/null 2>&1; then
    exec 8>"$STATE_DIR/.lock"
    flock -w $((START_TIMEOUT + 300)) 8 || die "timed out waiting for the lock $STATE_DIR/.lock"
  fi
}

[[ "$LEASE" =~ ^[0-9]*$ ]] || die "KAFKA_LEASE must be a pid (got '$LEASE')"

take_lease() {
  if [[ -n "$LEASE" ]]; then
    mkdir -p "$LEASE_DIR"
    : >"$LEASE_DIR/$LEASE"
  fi
}

# Drop leases whose process is gone; print the number still alive.
live_leases() {
  local f n=0
  mkdir -p "$LEASE_DIR"
  for f in "$LEASE_DIR"/*; do
    [[ -e "$f" ]] || continue
    if kill -0 "$(basename "$f")" 2>/dev/null; then
      n=$((n + 1))
    else
      rm -f "$f"
    fi
  done
  echo "$n"
}

[[ -n "$KAFKA_VERSION" ]] || die "cannot read <kafka.version> from $POM"

pom_sum() { sha256sum "$POM" | cut -d' ' -f1; }

jars_complete() {
  [[ -f "$MARKER" && "$(cat "$MARKER")" == "$(pom_sum)" && -d "$LIBS_DIR" ]]
}

cmd_fetch() {
  if jars_complete; then
    log "Kafka $KAFKA_VERSION jars already in $LIBS_DIR"
    return 0
  fi
  need mvn "install Maven 3.8+"
  need java "install a JDK 17+"
  mkdir -p "$VERSION_DIR"
  # Serialise concurrent fetches (e.g. two clones starting at once).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$VERSION_DIR/.lock"
    flock 9
    if jars_complete; then
      log "Kafka $KAFKA_VERSION jars already in $LIBS_DIR"
      return 0
    fi
  fi
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIBS_DIR ..."
  local tmp mvn_log
  tmp="$(mktemp -d "$VERSION_DIR/libs.tmp.XXXXXX")"
  mvn_log="$tmp.mvn.log"
  if ! mvn -B -q -f "$POM" dependency:copy-dependencies \
        -DoutputDirectory="$tmp" -DincludeScope=runtime >"$mvn_log" 2>&1; then
    tail -n 40 "$mvn_log" >&2 || true
    rm -rf "$tmp" "$mvn_log"
    die "mvn dependency:copy-dependencies failed (see output above)"
  fi
  rm -f "$mvn_log"
  ls "$tmp"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null 2>&1 \
    || { rm -rf "$tmp"; die "kafka_2.13-$KAFKA_VERSION.jar missing after mvn copy"; }
  rm -rf "$LIBS_DIR" "$MARKER"
  mv "$tmp" "$LIBS_DIR"
  pom_sum >"$MARKER"
  log "fetched $(ls "$LIBS_DIR" | wc -l) jars ($(du -sh "$LIBS_DIR" | cut -f1))"
}

port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1
}

# Broker answers a metadata request within $1 ms.
answering() {
  local ms="${1:-3000}"
  port_open "$KAFKA_PORT" || return 1
  node "$SCRIPT_DIR/wait-ready.mjs" "$BROKERS" "$ms" 2>/dev/null
}

our_pid() {
  # Prints the pid from the pid file if that process is alive and is a broker.
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  printf '%s\n' "$pid"
}

show_logs() {
  local f
  for f in "$LOG_DIR/server.log" "$LOG_DIR/kafka.out"; do
    if [[ -s "$f" ]]; then
      printf -- '----- last 40 lines of %s -----\n' "$f" >&2
      tail -n 40 "$f" >&2
    fi
  done
}

random_cluster_id() {
  # Kafka Uuid: 16 random bytes, URL-safe base64 without padding (22 chars).
  # Avoid a leading '-' (would look like a CLI flag).
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && break
  done
  printf '%s\n' "$id"
}

write_config() {
  cat >"$PROPS" <<EOF
# Generated by scripts/kafka/kafka.sh - single-node KRaft broker for tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$DATA_DIR
num.partitions=3
default.replication.factor=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
group.initial.rebalance.delay.ms=0
EOF
  if [[ -n "${KAFKA_EXTRA_CONFIG:-}" ]]; then
    printf '# KAFKA_EXTRA_CONFIG\n%s\n' "$KAFKA_EXTRA_CONFIG" >>"$PROPS"
  fi

  cat >"$LOG4J" <<'EOF'
# Generated by scripts/kafka/kafka.sh - everything goes to ${kafka.logs.dir}/server.log
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${kafka.logs.dir}/server.log
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.network.RequestChannel$=WARN
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.state.change.logger=WARN
EOF
}

java_cmd() {
  # shellcheck disable=SC2086
  java $HEAP_OPTS $JVM_OPTS -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOG_DIR" -Dlog4j.configuration="file:$LOG4J" \
    -cp "$LIBS_DIR/*" "$@"
}

cmd_start() {
  need java "install a JDK 17+"
  need node "Node 20 is required for the readiness probe"
  lock_state

  if answering 3000; then
    log "broker already answering on $BROKERS - reused"
    if [[ -n "$LEASE" ]]; then
      take_lease
    else
      # Started (or adopted) by hand: test runs must leave it running.
      rm -f "$AUTO_STOP"
    fi
    echo "reused"
    return 0
  fi

  local stale
  if stale="$(our_pid)"; then
    log "broker from a previous start (pid $stale) is not answering; stopping it"
    stop_broker
  fi
  if port_open "$KAFKA_PORT"; then
    die "port $KAFKA_PORT is in use but does not answer Kafka metadata requests (set KAFKA_PORT to another port)"
  fi
  if port_open "$KAFKA_CONTROLLER_PORT"; then
    die "controller port $KAFKA_CONTROLLER_PORT is already in use (set KAFKA_CONTROLLER_PORT to another port)"
  fi

  cmd_fetch

  # Fresh data and logs for every start so test runs begin clean.
  mkdir -p "$STATE_DIR"
  rm -rf "$DATA_DIR" "$LOG_DIR" "$LEASE_DIR" "$AUTO_STOP"
  mkdir -p "$DATA_DIR" "$LOG_DIR"
  write_config

  local cluster_id
  cluster_id="$(random_cluster_id)"
  log "formatting storage in $DATA_DIR (cluster id $cluster_id)"
  if ! java_cmd kafka.tools.StorageTool format -t "$cluster_id" -c "$PROPS" --ignore-formatted \
        >"$LOG_DIR/format.log" 2>&1; then
    cat "$LOG_DIR/format.log" >&2
    die "kafka.tools.StorageTool format failed"
  fi

  log "starting Kafka $KAFKA_VERSION on $BROKERS (controller 127.0.0.1:$KAFKA_CONTROLLER_PORT, logs in $LOG_DIR)"
  nohup java $HEAP_OPTS $JVM_OPTS -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dkafka.logs.dir="$LOG_DIR" -Dlog4j.configuration="file:$LOG4J" \
    -cp "$LIBS_DIR/*" kafka.Kafka "$PROPS" \
    </dev/null >"$LOG_DIR/kafka.out" 2>&1 8>&- 9>&- &
  local pid=$!
  echo "$pid" >"$PID_FILE"

  local start=$SECONDS deadline=$((SECONDS + START_TIMEOUT))
  while ! port_open "$KAFKA_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      show_logs
      rm -f "$PID_FILE"
      die "broker process $pid exited during startup (see log above)"
    fi
    if ((SECONDS >= deadline)); then
      show_logs
      stop_broker || true
      die "port $KAFKA_PORT did not accept connections within ${START_TIMEOUT}s"
    fi
    sleep 0.25
  done
  local remaining_ms=$(((deadline - SECONDS) * 1000))
  ((remaining_ms < 2000)) && remaining_ms=2000
  local probe_err
  if ! probe_err="$(node "$SCRIPT_DIR/wait-ready.mjs" "$BROKERS" "$remaining_ms" --warm 2>&1)"; then
    show_logs
    stop_broker || true
    die "broker did not answer a metadata request within ${START_TIMEOUT}s: $probe_err"
  fi
  log "broker ready on $BROKERS after $((SECONDS - start))s (pid $pid)"
  if [[ -n "$LEASE" ]]; then
    take_lease
    : >"$AUTO_STOP"
  fi
  echo "started"
}

stop_broker() {
  local pid
  if ! pid="$(our_pid)"; then
    if [[ -f "$PID_FILE" ]]; then
      log "stale pid file $PID_FILE (process gone); removing it"
      rm -f "$PID_FILE"
    else
      log "no broker started by this script is running (no $PID_FILE)"
    fi
    return 0
  fi
  log "stopping broker pid $pid (SIGTERM)"
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for ((i = 0; i < 80; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "broker pid $pid still running after 20s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -0 "$pid" 2>/dev/null && die "broker pid $pid survived SIGKILL"
  fi
  rm -f "$PID_FILE"
  log "broker stopped"
}

cmd_stop() {
  lock_state
  stop_broker
  rm -rf "$LEASE_DIR" "$AUTO_STOP"
}

cmd_release() {
  [[ -n "$LEASE" ]] || die "release needs KAFKA_LEASE=<pid used for start>"
  lock_state
  rm -f "$LEASE_DIR/$LEASE"
  local others
  others="$(live_leases)"
  if [[ ! -e "$AUTO_STOP" ]]; then
    log "lease $LEASE released; broker was not started by a test run, leaving it running"
  elif ((others > 0)); then
    log "lease $LEASE released; $others other test run(s) still use the broker, leaving it running"
  else
    stop_broker
    rm -f "$AUTO_STOP"
  fi
}

cmd_status() {
  if answering 3000; then
    log "broker answering on $BROKERS"
    return 0
  fi
  log "no broker answering on $BROKERS"
  return 1
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  release) cmd_release ;;
  *)
    echo "usage: $0 {fetch|start|stop|status|release}" >&2
    exit 64
    ;;
esac
