#!/usr/bin/env bash
# Section 4's (l, e) grid as a Slurm job array: one array task, and one shard, per grid point.
#
# Submit from the repository (after `npm ci`), on a machine with sbatch:
#   scripts/slurm-grid.sh [CONFIG] [eofd grid options]        # CONFIG: default configs/quick.yaml
#   OUT=/shared/eofd scripts/slurm-grid.sh configs/synthetic-k4.yaml --l 0,0.5,1 --set horizon=2000
# It counts the grid's points n (--l × --e: 7 × 7 = 49 by default, counted by eofd's own parser) and
# submits itself:
#   sbatch --array=0-<n−1> --output=$OUT/slurm-logs/%x-%A_%a.out scripts/slurm-grid.sh CONFIG [options]
# Task i runs `node <repo>/bin/eofd.js grid CONFIG --out $OUT --shard-count n --resume [options]`:
# shard i = SLURM_ARRAY_TASK_ID of n, into $OUT/shard-<i>-of-<n>/. Each task counts n from its own
# arguments, so re-running tasks with the same arguments (from the same folder, with the same OUT)
# keeps n:
#   sbatch --array=17,23 scripts/slurm-grid.sh CONFIG [options]     # log: ./eofd-grid-<job>_<task>.out
#   ARRAY=17,23 scripts/slurm-grid.sh CONFIG [options]              # the same, log under $OUT/slurm-logs
# When every task is done:
#   node bin/eofd.js merge "$OUT"/shard-*-of-<n> --out "$OUT"
# Environment: OUT (default results) and the repository must be on a filesystem every node sees;
# NODE (default: node on PATH); ARRAY (tasks to submit, default 0-<n−1>); LOGS (default
# $OUT/slurm-logs); sbatch's own variables (SBATCH_PARTITION, SBATCH_ACCOUNT, …) apply.
# The task runs node itself (not npx, whose renamed process Slurm's proctrack/linuxproc cannot signal).
# Preemptible partitions: a terminated task's eofd checkpoints its running units (eofd --checkpoint);
# --requeue lets Slurm requeue the task after a preemption or a node failure, and --signal=B:USR1@120
# makes the task checkpoint and requeue itself two minutes before its time limit, so that a grid longer
# than the limit goes on over several requeues, losing at most the rounds since the last checkpoint.
#SBATCH --job-name=eofd-grid
#SBATCH --output=eofd-grid-%A_%a.out
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --signal=B:USR1@120
set -euo pipefail

die() {
  echo "scripts/slurm-grid.sh: $*" >&2
  exit 2
}

# The repository: this script's parent, except in a batch task, where Slurm runs a copy from its
# spool; there it is EOFD_REPO (exported by the submission) or the folder sbatch was run from.
if [[ -n "${SLURM_JOB_ID:-}" ]]; then
  REPO="${EOFD_REPO:-${SLURM_SUBMIT_DIR:-$PWD}}"
else
  REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fi
[[ -f "$REPO/bin/eofd.js" ]] || die "$REPO/bin/eofd.js not found: submit from the repository, or set EOFD_REPO"
[[ -f "$REPO/dist/experiment/grid.js" ]] || die "$REPO/dist is missing: run npm ci (it builds dist/) first"
NODE="${NODE:-node}"
OUT="${OUT:-results}"

CONFIG=configs/quick.yaml
if [[ $# -gt 0 && "$1" != -* ]]; then
  CONFIG="$1"
  shift
fi
ARGS=("$@")
L=""
E=""
for ((i = 0; i < ${#ARGS[@]}; i++)); do
  case "${ARGS[i]}" in
    --l) L="${ARGS[i + 1]:-}" ;;
    --l=*) L="${ARGS[i]#--l=}" ;;
    --e) E="${ARGS[i + 1]:-}" ;;
    --e=*) E="${ARGS[i]#--e=}" ;;
    --out | --out=*) die "give the output folder as OUT=<dir> (the logs go there too), not ${ARGS[i]}" ;;
    --shard | --shard=* | --shard-count | --shard-count=*) die "${ARGS[i]}: the array sets the shard (task i of the grid's points)" ;;
    --force) die "--force would delete every shard's finished units; delete \$OUT/shard-*-of-* yourself to start over" ;;
  esac
done

# n = the number of grid points, from eofd's own list parser and default grid.
POINTS="$("$NODE" --input-type=module -e '
  const { pathToFileURL } = await import("node:url");
  const grid = await import(pathToFileURL(process.argv[1]).href);
  const count = (text, what) => (text === "" ? grid.DEFAULT_GRID : grid.parseExponentList(text, what)).length;
  try {
    console.log(count(process.argv[2], "--l") * count(process.argv[3], "--e"));
  } catch (error) {
    console.error(`scripts/slurm-grid.sh: ${error.message}`);
    process.exit(2);
  }
' "$REPO/dist/experiment/grid.js" "$L" "$E")" || exit 2

if [[ -n "${SLURM_ARRAY_TASK_ID:-}" ]]; then
  # One array task: shard SLURM_ARRAY_TASK_ID of POINTS (eofd refuses an index ≥ POINTS, exit 2).
  # --resume: a requeued or re-run task keeps the units it already finished and continues the
  # checkpointed ones. Slurm's SIGTERM (a preemption, scancel) reaches every process of the task, eofd
  # included, which checkpoints its running units and exits 143 (this shell only waits for it). SIGUSR1
  # (--signal above: two minutes before the time limit) reaches this shell alone: it stops eofd the same
  # way and requeues the task (scontrol requeue), which goes on where the units stopped.
  "$NODE" "$REPO/bin/eofd.js" grid "$CONFIG" --out "$OUT" --shard-count "$POINTS" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" --resume "${ARGS[@]}" &
  CHILD=$!
  TIMEUP=""
  trap 'TIMEUP=1; kill -TERM "$CHILD" 2>/dev/null || true' USR1
  trap ':' TERM
  set +e
  wait "$CHILD"
  STATUS=$?
  # A trapped signal ends `wait` early: wait again until eofd has written its checkpoints and exited.
  while kill -0 "$CHILD" 2>/dev/null; do
    wait "$CHILD"
    STATUS=$?
  done
  set -e
  if [[ -n "$TIMEUP" ]]; then
    TASK="${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}_${SLURM_ARRAY_TASK_ID}"
    if command -v scontrol >/dev/null && scontrol requeue "$TASK"; then
      echo "scripts/slurm-grid.sh: time limit near; its running units are checkpointed and task $TASK is requeued to continue them"
    else
      echo "scripts/slurm-grid.sh: time limit near; its running units are checkpointed: resubmit task $SLURM_ARRAY_TASK_ID (sbatch --array=$SLURM_ARRAY_TASK_ID …) to continue them" >&2
    fi
  fi
  exit "$STATUS"
fi
if [[ "${ENVIRONMENT:-}" == BATCH ]]; then
  die "submitted without --array: run scripts/slurm-grid.sh (without sbatch) to submit the $POINTS-task array, or sbatch --array=0-$((POINTS - 1)) …"
fi

# Submission.
command -v sbatch >/dev/null || die "sbatch not found: run this where Slurm's client commands are"
ARRAY="${ARRAY:-0-$((POINTS - 1))}"
LOGS="${LOGS:-$OUT/slurm-logs}"
mkdir -p "$LOGS"
export EOFD_REPO="$REPO" OUT NODE
JOB="$(sbatch --parsable --array="$ARRAY" --output="$LOGS/%x-%A_%a.out" "$REPO/scripts/slurm-grid.sh" "$CONFIG" "${ARGS[@]}")"
JOB="${JOB%%;*}"
WORDS="$(printf ' %q' "$CONFIG" "${ARGS[@]}")"
echo "scripts/slurm-grid.sh: submitted job $JOB: tasks $ARRAY of a $POINTS-point grid → $OUT/shard-<i>-of-$POINTS/ (logs: $LOGS)"
RERUN="OUT=$(printf '%q' "$OUT") sbatch --array=17 scripts/slurm-grid.sh"
[[ "$REPO" == "$PWD" ]] || RERUN="OUT=$(printf '%q' "$OUT") EOFD_REPO=$(printf '%q' "$REPO") sbatch --array=17 $(printf '%q' "$REPO/scripts/slurm-grid.sh")"
echo "  re-run tasks (e.g. 17):  $RERUN$WORDS"
echo "  when all are done:       node bin/eofd.js merge $(printf '%q' "$OUT")/shard-*-of-$POINTS --out $(printf '%q' "$OUT")"
