#!/usr/bin/env bash
# The 49-point (l, e) grid of Section 4 as a Slurm job array: one array task per shard.
#   sbatch scripts/slurm-grid.sh                  # configs/quick.yaml, results under results/
#   CONFIG=configs/synthetic-k4.yaml OUT=/shared/eofd sbatch scripts/slurm-grid.sh
# Each task runs `eofd grid` with the shard taken from SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN and
# SLURM_ARRAY_TASK_COUNT (so the array must be contiguous) and writes $OUT/shard-<i>-of-49/.
# OUT must be on a filesystem every node sees. When all tasks are done:
#   eofd merge "$OUT"/shard-*-of-49 --out "$OUT"     # → $OUT/<name>-grid/{grid.csv,best.json,heatmaps}
# (or submit the merge with: sbatch --dependency=afterok:<jobid> --wrap 'npx eofd merge ...')
#SBATCH --job-name=eofd-grid
#SBATCH --array=0-48
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=04:00:00
#SBATCH --output=eofd-grid-%A_%a.out
set -euo pipefail

CONFIG="${CONFIG:-configs/quick.yaml}"
OUT="${OUT:-results}"
EOFD="${EOFD:-npx --no-install eofd}"

cd "${SLURM_SUBMIT_DIR:-.}"
# --resume: a requeued or restarted task keeps the units it already finished.
exec $EOFD grid "$CONFIG" --out "$OUT" --jobs "${SLURM_CPUS_PER_TASK:-1}" --resume --quiet
