#!/usr/bin/env bash
# rlxc for a machine without MLIR (a GPU machine): replays the artifacts that
# were compiled here. Takes rlxc's arguments: INPUT [FLAG...] -o OUTPUT.
#   RLXC_REPLAY_DIR   the folder of recorded artifacts (required)
#   RLXC_REPLAY_REAL  the real rlxc: where set, compile with it and record
#   RLXC_REPLAY_FLAGS flags added to each recorded compile, not to the key
#                     (--cpu=x86-64-v3: the host code of a CUDA artifact
#                     runs on the GPU machine's CPU, not this one's)
# An artifact is keyed by the SHA-256 of its input's text and the flags (not
# the paths), so a module written anywhere with the same text and flags
# replays. Tests and benches call it through $RLX_RLXC (bench/gpu_check.sh).
set -uo pipefail
dir=${RLXC_REPLAY_DIR:?rlxc_replay.sh: RLXC_REPLAY_DIR names the recorded artifacts}
input="" output="" flags=()
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case ${args[i]} in
    -o) output=${args[i + 1]:-}; i=$((i + 1)) ;;
    -*) flags+=("${args[i]}") ;;
    *) input=${args[i]} ;;
  esac
done
if [ -z "$input" ] || [ -z "$output" ]; then
  echo "rlxc_replay.sh: usage: rlxc_replay.sh INPUT [FLAG...] -o OUTPUT" >&2
  exit 2
fi
key=$({ cat "$input" && printf '\n--flags' && printf ' %s' "${flags[@]}"; } |
  sha256sum | cut -c1-32) || exit 1
if [ -n "${RLXC_REPLAY_REAL:-}" ]; then
  # shellcheck disable=SC2086
  "$RLXC_REPLAY_REAL" "$@" ${RLXC_REPLAY_FLAGS:-} || exit
  mkdir -p "$dir" && cp "$output" "$dir/$key.so"
  exit
fi
if [ ! -f "$dir/$key.so" ]; then
  echo "rlxc_replay.sh: no artifact recorded for $input (flags:${flags[*]/#/ }," \
    "key $key) in $dir: record it where rlxc runs (bench/gpu_check.sh --prepare)" >&2
  exit 1
fi
cp "$dir/$key.so" "$output"
