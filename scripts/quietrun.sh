#!/usr/bin/env bash
# scripts/quietrun.sh [-t SECONDS] CMD...: runs CMD while every other process working
# under $QUIET_UNDER (default: the directory above this checkout, where other checkouts
# build and test) and every compiler is paused by SIGSTOP; all are resumed afterwards,
# also on error or Ctrl-C. One quiet run at a time (flock). CMD is killed after SECONDS
# (default 240) so the paused work is not starved. For benchmark figures on a machine
# where other work runs; not for builds.
set -u
under=${QUIET_UNDER:-$(cd "$(dirname "$0")/../.." && pwd)}
limit=240
if [ "${1:-}" = -t ]; then limit=$2; shift 2; fi
exec 9>"${TMPDIR:-/tmp}/peakbench-quietrun.lock"
flock 9
me=$$
# ancestors of this script: never stopped
anc=" $me "
p=$me
while [ "$p" -gt 1 ]; do p=$(awk '/^PPid:/{print $2}' /proc/$p/status 2>/dev/null || echo 1); anc="$anc$p "; done
stopped=()
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  case "$anc" in *" $pid "*) continue;; esac
  cwd=$(readlink "$d/cwd" 2>/dev/null) || continue
  comm=$(cat "$d/comm" 2>/dev/null) || continue
  case "$comm" in rustc|cargo|cc1|cc1plus|ld|ld.bfd|ld.gold|collect2|cc|gcc|c++) ;; *)
    case "$cwd" in "$under"/*) ;; *) continue;; esac;;
  esac
  kill -STOP "$pid" 2>/dev/null && stopped+=("$pid")
done
resume() { for pid in "${stopped[@]}"; do kill -CONT "$pid" 2>/dev/null; done; }
trap resume EXIT INT TERM
sleep 1
timeout "$limit" "$@"
