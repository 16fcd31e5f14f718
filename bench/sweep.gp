# SPDX-License-Identifier: Apache-2.0
# Throughput against kernel width from `aes-gen-bench --sweep --csv`: one panel
# per mode, one line per backend (distinct colour, dash and point), linear
# throughput axis.  Usage:
#   gnuplot -e "csv='sweep.csv'; out='sweep'; bytes=8192; bits=128" bench/sweep.gp
# writes out.svg and out.png.
set datafile separator ","
modes = system("awk -F, 'NR > 1 && !seen[$3]++ { printf \"%s \", $3 }' " . csv)
backends = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' " . csv)
n = words(modes)
cols = (n > 4) ? 4 : n
rows = int((n + cols - 1) / cols)
size_text = (bytes >= 1024) ? sprintf("%d KiB", bytes / 1024) : sprintf("%d bytes", bytes)
do for [term in "svg pngcairo"] {
    if (term eq "svg") {
        set terminal svg size 360 * cols, 300 * rows + 40 dynamic font "sans,10"
        set output out . ".svg"
    } else {
        set terminal pngcairo size 360 * cols, 300 * rows + 40 font "sans,9"
        set output out . ".png"
    }
    set multiplot layout rows, cols title sprintf("aes-gen: AES-%d throughput against kernel width, %s buffers", bits, size_text)
    set grid
    set logscale x 2
    set xrange [0.8:*]
    unset logscale y
    set yrange [0:*]
    set xlabel "width (blocks per iteration)"
    set ylabel "MiB/s"
    set key top left font ",8" noenhanced
    do for [m = 1:n] {
        mode = word(modes, m)
        set title mode noenhanced
        plot for [b = 1:words(backends)] csv using \
            ((strcol(1) eq word(backends, b) && strcol(3) eq mode) ? $4 : NaN):6 \
            with linespoints linecolor b dashtype b pointtype b pointsize 0.7 \
            title word(backends, b)
    }
    unset multiplot
}
