# SPDX-License-Identifier: Apache-2.0
# Throughput against kernel width from `aes-gen-bench --sweep --csv`.
# Usage: gnuplot -e "csv='sweep.csv'; out='sweep.svg'" bench/sweep.gp
set datafile separator ","
set terminal svg size 900,560 dynamic font "sans,11"
set output out
set title "aes-gen: AES-128 throughput against kernel width (8 KiB buffers)"
set xlabel "kernel width (blocks per loop iteration)"
set ylabel "MiB/s"
set logscale x 2
set logscale y
set key outside right
set grid
# One series per backend and mode, in the order they appear.
series = system("awk -F, 'NR > 1 && !seen[$1 \" \" $3]++ { printf \"%s:%s \", $1, $3 }' " . csv)
plot for [s in series] csv using \
    ((strcol(1) . ":" . strcol(3)) eq s ? $4 : NaN):6 with linespoints pointtype 7 pointsize 0.6 title s
