#!/bin/sh
# Creates the namespace and registers Switchyard's search attributes (docs/observability.md) on a Temporal cluster. Safe to re-run.
# Runs in temporalio/admin-tools (docker-compose.yml service `temporal-setup`); works against any cluster:
#   TEMPORAL_ADDRESS=temporal.internal:7233 TEMPORAL_NAMESPACE=prod sh register-search-attributes.sh
set -eu
ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${TEMPORAL_NAMESPACE_RETENTION:-7d}"

attempt=0
until temporal operator cluster health --address "$ADDRESS" | grep -q SERVING; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "Temporal at $ADDRESS did not become healthy" >&2
    exit 1
  fi
  echo "waiting for Temporal at $ADDRESS"
  sleep 2
done

if temporal operator namespace describe --address "$ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  temporal operator namespace create --address "$ADDRESS" --retention "$RETENTION" --namespace "$NAMESPACE"
fi

# A new namespace takes a moment to reach every frontend's cache.
attempt=0
until temporal operator search-attribute list --address "$ADDRESS" --namespace "$NAMESPACE" >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "namespace $NAMESPACE did not become readable" >&2
    exit 1
  fi
  echo "waiting for namespace $NAMESPACE"
  sleep 1
done

register() {
  if temporal operator search-attribute list --address "$ADDRESS" --namespace "$NAMESPACE" | grep -qw "$1"; then
    echo "search attribute $1 exists"
  else
    temporal operator search-attribute create --address "$ADDRESS" --namespace "$NAMESPACE" --name "$1" --type "$2"
  fi
}

register SwitchyardRoute Keyword
register SwitchyardOutcome Keyword
register SwitchyardServedBy Keyword
register SwitchyardFallbacks Int
register SwitchyardCostUsd Double
echo "Switchyard search attributes registered in namespace $NAMESPACE"
