#!/usr/bin/env bash
# Reproduces the experiments of Dhaliwal et al. (2019) through jldp: Table 1
# (k-means accuracy), Figure 3 (recovered minus true squared distances),
# Figure 4 (noise standard deviation against k) and the variance check of
# Claim 7, each beside no projection (raw noise at the same epsilon).  The
# papers' experiments keep the papers' Gaussian P.  Data are generated and
# released in SQL (test/paper/paper.sql) on
# a throwaway cluster, or on the server of the PG* variables (database
# jldp_paper there); the figures and the report come from report.py
# (Debian's python3-matplotlib and python3-numpy).
#
# Usage: test/paper/run.sh [--quick] [--out DIR]
#   --out DIR  where to write (default: test/paper of the source tree):
#                DIR/reproduction.md   the report
#                DIR/figures/*.png     figures
#                DIR/results/*.csv     the numbers behind them
#   --quick    a reduced run (fewer keys, points and releases) that checks
#              the whole pipeline; it fails on SQL errors, never on the
#              statistical wobble of a small run
#
# Further experiments plug in as scripts beside this one.  If
# test/paper/kenthapadi.sh exists, it is run as
#     test/paper/kenthapadi.sh --out DIR [--quick]
# after the experiments above, with the PG* variables pointing at the same
# server (jldp installed, superuser connection; it uses a database of its
# own).  It writes DIR/results/kenthapadi*.csv, DIR/figures/kenthapadi*.png
# and the markdown fragment DIR/results/kenthapadi_section.md, whose links
# are relative to DIR/reproduction.md; the report includes the fragment as
# it is when present.  A failure of the script fails the run.  The same
# holds for test/paper/realdata.sh (scikit-learn's bundled data sets, raw
# noise against projections and jl_advise's choice), whose fragment is
# DIR/results/realdata_section.md, and for test/paper/nullspace.sh
# (null-space cleaning on the scene data), whose fragment is
# DIR/results/nullspace_section.md, and for test/paper/covariance.sh (the
# covariance release against Analyze Gauss and Laplace on A^T A), whose
# fragment is DIR/results/covariance_section.md, and for test/paper/graph.sh
# (the graph release for cut queries against per-query Laplace and
# randomized response), whose fragment is DIR/results/graph_section.md,
# and for test/paper/clusters.sh (the k-means mechanism against
# diffprivlib's algorithm and release-then-cluster), whose fragment is
# DIR/results/clusters_section.md.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
quick=0
out="$top/test/paper"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --out) [ $# -ge 2 ] || { echo "--out needs a directory" >&2; exit 2; }; out=$2; shift ;;
    *) echo "usage: $0 [--quick] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out/results" "$out/figures"
out=$(cd "$out" && pwd)

# Debian's python3 with matplotlib (another python3 may come first in PATH)
python=""
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import matplotlib, numpy' 2>/dev/null; then
    python=$py
    break
  fi
done
[ -n "$python" ] || { echo "python3 with matplotlib and numpy is missing: run test/deps.sh" >&2; exit 1; }

# Sizes.  The paper does not give its number of points; ours is stated in the report.
if [ "$quick" -eq 1 ]; then
  T1_REPS=3;  T1_NPER=100         # Table 1: keys per cell, points per cluster
  F3_PAIRS=100; F3_RELEASES=30    # Figure 3: pairs, releases (one key each)
  F3_NPER=500                     #   points per cluster the pairs are drawn from
  F4_KEYS=2;  F4_KS='{1,2,5,10,20,30}'   # Figure 4: keys per k, the ks
else
  T1_REPS=40; T1_NPER=1000
  F3_PAIRS=1000; F3_RELEASES=1000 # the paper's 1000 pairs x 1000 releases
  F3_NPER=1000
  F4_KEYS=24; F4_KS='{1,2,3,4,5,6,8,10,12,15,20,25,30,40,50}'
fi
T1_DKS='{{3,2},{10,3},{50,10},{100,20}}'
F3_D=3; F3_K=2          # the paper's Figures 1 and 2 data: d = 3, k = 2
F3B_D=100; F3B_K=20     # and the largest setting of Table 1, where the noise terms dominate the variance
F4_D=100                # exact element calibration depends on d (a max over d rows of P)
ROW_DELTA=0.01          # delta for the paper's row-wise constant (c = k t)
ROW_DELTA_MINT=0.999999 # the paper's minimal t = sqrt(2 ln(2k) / k): delta -> 1

source "$top/test/pgenv.sh"
jl_install
jl_start_cluster
db=${JLDP_PAPER_DB:-jldp_paper}
drop_db() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$db\"" >/dev/null 2>&1 || true; }
drop_db
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE \"$db\""
trap 'drop_db; jl_stop_cluster' EXIT

# one psql connection: the temporary tables of paper.sql live in it
run_sql() {
  psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -d "$db" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION jldp;
\i $here/paper.sql
INSERT INTO paper_method VALUES
  ('none',           1, NULL,      NULL,    NULL,            'none (raw data)'),
  ('projection',     2, NULL,      NULL,    NULL,            'projection only, no noise'),
  ('element_paper',  3, 'attribute', 'paper', NULL,            'element-wise, paper calibration'),
  ('row_paper',      4, 'row',     'paper', $ROW_DELTA,      'row-wise, paper calibration, delta $ROW_DELTA'),
  ('row_paper_mint', 5, 'row',     'paper', $ROW_DELTA_MINT, 'row-wise, paper calibration, the paper''s minimal t'),
  ('element_exact',  6, 'attribute', 'exact', NULL,            'element-wise, exact calibration'),
  ('row_exact',      7, 'row',     'exact', NULL,            'row-wise, exact calibration');
INSERT INTO paper_method VALUES
  ('raw_element',    8, 'attribute', 'exact', NULL, 'no projection (raw noise), element-wise, same epsilon', 'identity'),
  ('raw_row',        9, 'row',     'exact', NULL, 'no projection (raw noise), row-wise, same epsilon',     'identity');
\copy (SELECT method, label, neighbor, calibration, delta, kind FROM paper_method ORDER BY ord) TO '$out/results/methods.csv' CSV HEADER

\echo == Figure 4: noise standard deviation against k
SELECT setseed(0.4);
SELECT paper_fig4($F4_D, '$F4_KS', $F4_KEYS,
                  '{element_paper,row_paper,row_paper_mint,element_exact,row_exact}');
\copy (SELECT * FROM f4_result ORDER BY method, k, key) TO '$out/results/fig4_noise_sd.csv' CSV HEADER
-- no projection: k = d, one noise level (nothing varies with the key)
SELECT jl_key_create('f4_raw');
\copy (SELECT method, $F4_D AS d, (paper_info($F4_D, $F4_D, m, 'f4_raw')->>'noise_variance')::float8 AS noise_variance FROM paper_method m WHERE kind = 'identity' ORDER BY ord) TO '$out/results/fig4_raw.csv' CSV HEADER

\echo == Figure 3 and the variance check: $F3_PAIRS pairs x $F3_RELEASES releases, d = $F3_D, k = $F3_K and d = $F3B_D, k = $F3B_K
SELECT setseed(0.3);
SELECT paper_fig3('d${F3_D}_k${F3_K}', $F3_PAIRS, $F3_RELEASES, $F3_NPER, $F3_D, $F3_K, '{element_paper,row_paper,element_exact,row_exact,raw_element,raw_row}');
SELECT setseed(0.2);
SELECT paper_fig3('d${F3B_D}_k${F3B_K}', $F3_PAIRS, $F3_RELEASES, $F3_NPER, $F3B_D, $F3B_K, '{element_paper,row_paper,element_exact,row_exact,raw_element,raw_row}');
\copy (SELECT * FROM f3_summary) TO '$out/results/fig3_summary.csv' CSV HEADER
\copy (SELECT * FROM paper_f3_histogram(80)) TO '$out/results/fig3_histogram.csv' CSV HEADER
\copy (SELECT * FROM variance_pairs ORDER BY cfg, method, pair) TO '$out/results/variance_pairs.csv' CSV HEADER
\copy (SELECT * FROM variance_summary) TO '$out/results/variance_summary.csv' CSV HEADER

\echo == Table 1: k-means accuracy, $T1_REPS keys per cell, $T1_NPER points per cluster
SELECT setseed(0.1);
SELECT paper_table1('$T1_DKS', $T1_REPS, $T1_NPER);
\copy (SELECT * FROM t1_result ORDER BY d, k, rep, method) TO '$out/results/table1_runs.csv' CSV HEADER
SQL
}

t0=$(date +%s)
run_sql
t_sql=$(( $(date +%s) - t0 ))

# the experiments beside this one (see the header), each timed
declare -A secs
for plugin in kenthapadi realdata nullspace covariance graph clusters; do
  secs[$plugin]=0
  if [ -f "$here/$plugin.sh" ]; then
    echo "== test/paper/$plugin.sh"
    t1=$(date +%s)
    args=(--out "$out")
    [ "$quick" -eq 1 ] && args+=(--quick)
    bash "$here/$plugin.sh" "${args[@]}"
    secs[$plugin]=$(( $(date +%s) - t1 ))
  else
    rm -f "$out/results/${plugin}_section.md"
  fi
done

echo "== figures and report"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
"$python" "$here/report.py" --out "$out" \
  --quick "$quick" --seconds-sql "$t_sql" --seconds-kenthapadi "${secs[kenthapadi]}" --seconds-realdata "${secs[realdata]}" --seconds-nullspace "${secs[nullspace]}" \
  --machine "$(nproc) cores${cpu:+, $cpu}" \
  --pg "$(psql -X -At -d "$db" -c 'SHOW server_version')" \
  --sizes "t1_reps=$T1_REPS t1_nper=$T1_NPER f3_pairs=$F3_PAIRS f3_releases=$F3_RELEASES f3_nper=$F3_NPER f3_d=$F3_D f3_k=$F3_K f3b_d=$F3B_D f3b_k=$F3B_K f4_keys=$F4_KEYS f4_d=$F4_D row_delta=$ROW_DELTA"
echo "report: $out/reproduction.md ($(( $(date +%s) - t0 )) s)"
