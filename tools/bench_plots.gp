# The plots of tools/bench.sh, from the data files tools/bench_report.py
# writes: restore throughput against checkpoint size for each thread count,
# and MLP training steps/s against threads.
#   gnuplot -e "out='bench_out'" tools/bench_plots.gp

set terminal pngcairo size 1100,480 font ",10"
set datafile missing "NaN"
set grid
set key below

set output out."/restore.png"
set multiplot layout 1,2 title "Checkpoint restore, warm page cache (GB/s, higher is better)"
set logscale x 2
set xlabel "checkpoint size (MiB)"
set ylabel "GB/s"
set yrange [0:*]
do for [t=1:2] {
  set title sprintf("%d thread%s", t, t > 1 ? "s" : "")
  plot out."/restore.dat" using ($2 == t ? $1 : NaN):3 with linespoints lw 2 title "minigraph session", \
       ""                  using ($2 == t ? $1 : NaN):4 with linespoints title "minigraph, first restore", \
       ""                  using ($2 == t ? $1 : NaN):5 with linespoints title "pread (baseline)", \
       ""                  using ($2 == t ? $1 : NaN):6 with linespoints title "torch.load (1 thread)", \
       ""                  using ($2 == t ? $1 : NaN):7 with linespoints title "np.load per tensor"
}
unset multiplot

set output out."/mlp.png"
unset logscale x
set title "MLP 784-128-10, batch 32: training steps/s (higher is better)"
set xlabel "threads"
set ylabel "steps/s"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
plot out."/mlp.dat" using 2:xtic(1) title "minigraph SGD", \
     ""             using 3 title "minigraph Adam", \
     ""             using 4 title "hand-fused Eigen (SGD)", \
     ""             using 5 title "PyTorch (SGD)"
