#!/bin/sh
# tests/container-smoke.sh - build the image of Containerfile and check it as a CI user would.
#
#   sh tests/container-smoke.sh [--no-build] [IMAGE]     (IMAGE default ragpipe:smoke)
#
# With podman (else docker; RAG_CT names the command, e.g. "podman --runtime runc"): builds the
# image (RAG_CT_BASE names another base image, e.g. one imported from a debootstrap root where
# no registry can be reached), then runs it: the user is not root, the tools are on PATH and
# print VERSION's version, rag-eval writes a run of the installed example into the /data volume
# and stores it in the default run store there, and a second container on the same volume finds
# the run's files and rag-store lists it. RAG_CT_RUN=buildah runs the containers with `buildah
# run` (RAG_CT_RUNTIME, default runc), where podman run cannot start one (a sandbox that refuses
# its rlimits): then the runs on the volume are runs in one kept working container, so the
# volume itself is not checked. Not part of make check (it needs a container
# engine and a base image); prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
build=1
[ "${1:-}" = --no-build ] && { build=; shift; }
img=${1:-ragpipe:smoke}
ct=${RAG_CT:-$(command -v podman || command -v docker)} || { echo "container-smoke: no podman or docker" >&2; exit 2; }
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
nok() { fail=$((fail + 1)); echo "not ok - $1"; [ -n "${2:-}" ] && printf '#   %s\n' "$2"; }
is() { if [ "$1" = "$2" ]; then ok "$3"; else nok "$3" "got '$1', want '$2'"; fi; }
like() { if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok "$3"; else nok "$3" "got '$(printf '%s' "$1" | tr '\n' ' ' | head -c 400)', want /$2/"; fi; }
unlike() { if printf '%s\n' "$1" | grep -Eq -- "$2"; then nok "$3" "got '$(printf '%s' "$1" | tr '\n' ' ' | head -c 400)', should not match /$2/"; else ok "$3"; fi; }

mkdir -p tests/tmp
if [ -n "$build" ]; then
	t0=$(date +%s)
	if $ct build ${RAG_CT_BASE:+--build-arg BASE="$RAG_CT_BASE"} -t "$img" -f Containerfile . >tests/tmp/container-build.log 2>&1; then
		ok "image built ($(($(date +%s) - t0)) s)"
	else
		tail -n 30 tests/tmp/container-build.log
		nok "image built (log: tests/tmp/container-build.log)"
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
V=$(cat VERSION)
# ctrun CMD...: CMD in a new container of the image, /data the volume $vol when set
vol=
if [ "${RAG_CT_RUN:-}" = buildah ]; then
	# a new working container a run; the "volume" is one working container kept for the runs
	# that use it (this machine's sandbox shows a container nothing written to a bind mount)
	ctrun() {
		if [ -n "$vol" ]; then
			buildah run --runtime "${RAG_CT_RUNTIME:-runc}" ${RAG_CT_USER:+--user "$RAG_CT_USER"} "$vol" -- "$@"
			return
		fi
		_c=$(buildah from --pull-never "$img" 2>/dev/null) || return 125
		buildah run --runtime "${RAG_CT_RUNTIME:-runc}" ${RAG_CT_USER:+--user "$RAG_CT_USER"} "$_c" -- "$@"
		_st=$?
		buildah rm "$_c" >/dev/null 2>&1
		return $_st
	}
	newvol() { vol=$(buildah from --pull-never "$img" 2>/dev/null); }
	rmvol() { buildah rm "$vol" >/dev/null 2>&1; }
else
	ctrun() { $ct run --rm ${RAG_CT_USER:+--user "$RAG_CT_USER"} ${vol:+-v "$vol:/data"} "$img" "$@"; }
	newvol() { vol=ragpipe-smoke-$$; $ct volume create "$vol" >/dev/null; }
	rmvol() { $ct volume rm -f "$vol" >/dev/null 2>&1; }
fi
is "$(ctrun id -un)" rag "runs as the user rag"
is "$(ctrun id -u)" 1000 "...uid 1000, not root"
is "$(ctrun sh -c 'command -v rag-eval')" /usr/bin/rag-eval "rag-eval on PATH"
is "$(ctrun rag-eval --version)" "rag-eval (ragpipe) $V" "rag-eval --version prints VERSION"
is "$(ctrun pwd)" /data "the working directory is /data"
is "$(${RAG_CT_INSPECT:-$ct} image inspect --format '{{json .Config.Volumes}}' "$img" | tr -d ' ')" '{"/data":{}}' "/data is a volume"

newvol
trap rmvol EXIT
ctrun sh -c 'rag-eval -q -o run1 /usr/share/ragpipe/examples/example.jsonl && rag-store -q add run1' >/dev/null 2>&1
is "$?" 0 "rag-eval on the installed example into the volume, then rag-store add: exit 0"
files=$(ctrun sh -c 'cd run1 && ls records.jsonl run.json gate.json junit.xml summary.md report.html' 2>&1 | tr '\n' ' ')
is "$files" "gate.json junit.xml records.jsonl report.html run.json summary.md " "a later run on the volume finds the run's files"
n=$(ctrun rag-store list --json 2>/dev/null | wc -l | tr -d ' ')
is "$n" 1 "...and rag-store lists the stored run (the store is in the volume)"
is "$(ctrun sh -c 'ls ragpipe')" runs.db "the store is /data/ragpipe/runs.db"

rmvol
vol=
trap - EXIT

# As another uid than the image's (GitHub's hosted runners are 1001, and the recipe runs the image
# with --user "$(id -u):$(id -g)"): a judge over HTTP needs its cache under /data/.cache, which
# that uid must be able to create. The judge is unreachable (no network in a check): every record
# gets its error and the run ends with exit 4, its summary written; an uncreatable cache was exit
# 5 with no record. (No volume: /data is the image's own, as in the recipe.)
RAG_CT_USER=1001:1001
is "$(ctrun id -u)" 1001 "--user 1001:1001: runs as uid 1001"
out=$(ctrun sh -c 'RAG_BASE_URL=http://127.0.0.1:9/v1 RAG_MODEL=judge-x rag-eval -q -m faithfulness -o run2 \
	/usr/share/ragpipe/examples/example.jsonl; echo "exit $?"; ls run2/summary.md .cache/ragpipe' 2>&1)
like "$out" "exit 4" "uid 1001, an HTTP judge that cannot be reached: exit 4 (the judge), not 5"
unlike "$out" "cannot create" "...no directory it cannot create"
like "$out" "run2/summary.md" "...the run's summary written"
like "$out" "[.]cache/ragpipe" "...and its cache created under /data/.cache"
RAG_CT_USER=

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
