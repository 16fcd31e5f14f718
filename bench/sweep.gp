# SPDX-License-Identifier: Apache-2.0
# Throughput against kernel width from `aes-gen-bench --sweep --csv`: a panel
# per parallel mode (a line per backend against the width, a ring on the
# width the library starts a bulk message at), one panel of bars for the
# serial modes (width 1), a log throughput axis (the backends span 100x), and
# one legend for all.  Usage:
#   gnuplot -e "csv='sweep.csv'; out='sweep'; bytes=8192; bits=128; \
#               cpu='AMD EPYC ...'; version='0.4.0'" bench/sweep.gp
# writes out.svg and out.png.
set datafile separator ","
if (!exists("cpu")) cpu = "unknown CPU"
if (!exists("version")) version = ""
modes = system("awk -F, 'NR > 1 && $4 > 1 && !seen[$3]++ { printf \"%s \", $3 }' " . csv)
serial = system("awk -F, 'NR > 1 { w[$3] = w[$3] > $4 ? w[$3] : $4 } END { for (m in w) if (w[m] == 1) printf \"%s \", m }' " . csv . " | tr ' ' '\\n' | sort | tr '\\n' ' '")
backends = system("awk -F, 'NR > 1 && !seen[$1]++ { printf \"%s \", $1 }' " . csv)
nb = words(backends)
n = words(modes) + (words(serial) > 0 ? 1 : 0) + 1   # + the serial panel + the legend
cols = (n > 4) ? 4 : n
rows = int((n + cols - 1) / cols)
size_text = (bytes >= 1024) ? sprintf("%d KiB", bytes / 1024) : sprintf("%d bytes", bytes)
# 14 colours that stay apart (Okabe-Ito and Tol's), then the dashes repeat.
array colour[14] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", \
    "#000000", "#882255", "#117733", "#999933", "#AA4499", "#44AA99", "#661100", "#888888"]
do for [b = 1:nb] {
    c = colour[(b - 1) % 14 + 1]
    d = (b - 1) % 5 + 1
    pt = (b - 1) % 13 + 1
    set linetype b linecolor rgb c linewidth 1.5 dashtype d pointtype pt pointsize 0.7
}
do for [term in "svg pngcairo"] {
    if (term eq "svg") {
        set terminal svg size 380 * cols, 320 * rows + 50 dynamic font "sans,10"
        set output out . ".svg"
    } else {
        set terminal pngcairo size 380 * cols, 320 * rows + 50 font "sans,9"
        set output out . ".png"
    }
    set multiplot layout rows, cols title sprintf("aes-gen %s: AES-%d throughput against kernel width, %s buffers\n%s (rings: the width the library uses)", version, bits, size_text, cpu) noenhanced
    set grid
    set logscale y 10
    set ylabel "MiB/s (log)"
    unset key
    do for [m = 1:words(modes)] {
        mode = word(modes, m)
        set title mode noenhanced
        set logscale x 2
        set xrange [0.8:*]
        set xlabel "width (blocks per iteration)"
        plot for [b = 1:nb] csv using \
            ((strcol(1) eq word(backends, b) && strcol(3) eq mode) ? $4 : NaN):6 \
            with linespoints linetype b notitle, \
            for [b = 1:nb] csv using \
            ((strcol(1) eq word(backends, b) && strcol(3) eq mode && $8 == 1) ? $4 : NaN):6 \
            with points linetype b pointtype 6 pointsize 2.2 dashtype 1 notitle
    }
    if (words(serial) > 0) {
        # Serial modes: a group of bars per mode, a bar per backend that has it.
        set title "serial modes (width 1): " . serial noenhanced
        unset logscale x
        set style fill solid 0.8 border -1
        set boxwidth 0.8 / nb
        set xrange [0.5:words(serial) + 0.5]
        set xtics () noenhanced
        do for [s = 1:words(serial)] { set xtics add (word(serial, s) s) }
        set xlabel ""
        plot for [b = 1:nb] csv using \
            ((strcol(1) eq word(backends, b) && $4 == 1) ? \
             (sum [s = 1:words(serial)] (strcol(3) eq word(serial, s) ? s : 0)) - 0.4 + (b - 0.5) * 0.8 / nb : NaN):6 \
            with boxes linetype b dashtype solid notitle
        set xtics autofreq
        set style fill empty
    }
    # The legend, once, in a panel of its own.
    unset title
    unset border
    unset tics
    unset grid
    unset xlabel
    unset ylabel
    unset logscale
    set xrange [0:1]
    set yrange [0:1]
    set key center center vertical font ",9" noenhanced samplen 3 spacing 1.1
    plot for [b = 1:nb] NaN with linespoints linetype b title word(backends, b)
    set border
    set tics
    set grid
    unset key
    set yrange [*:*]
    unset multiplot
}
