#!/usr/bin/env bash
# Data-parallel training of the example: N replicas under mpirun with
# --batch B each must reach the accuracy of one process with --batch N*B
# (same data order, same steps) within 1%, and at least 95%.
# usage: check_data_parallel.sh TRAIN_DIGITS MPIRUN OUT_DIR EPOCHS N B
set -euo pipefail
train=$1 mpirun=$2 out=$3 epochs=$4 n=$5 b=$6
rm -rf "$out" && mkdir -p "$out/one" "$out/dp"
"$train" --epochs "$epochs" --batch $((n * b)) --out "$out/one" | tee "$out/one.log"
# One kernel thread per replica: the replicas share the cores.
"$mpirun" --allow-run-as-root --oversubscribe --bind-to none \
  -x RLX_NUM_THREADS=1 -np "$n" \
  "$train" --data-parallel --epochs "$epochs" --batch "$b" --out "$out/dp" \
  | tee "$out/dp.log"
one=$(sed -n 's/^test accuracy: \([0-9.]*\).*/\1/p' "$out/one.log")
dp=$(sed -n 's/^test accuracy: \([0-9.]*\).*/\1/p' "$out/dp.log")
grep -q "^data parallel: $n replicas" "$out/dp.log"
awk -v a="$one" -v b="$dp" 'BEGIN {
  d = a - b; if (d < 0) d = -d;
  if (b < 0.95) { print "data-parallel accuracy " b " below 0.95"; exit 1 }
  if (d > 0.01) { print "data-parallel " b " differs from one process " a; exit 1 }
  print "data-parallel accuracy " b ", one process " a }'
