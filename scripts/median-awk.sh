# Sourced by scripts/rayon-core-ab.sh and scripts/rayon-demo-bench.sh: an
# awk function, `median(list)`, the median of a space-separated list of
# numbers, for their awk programs to start with ("$MEDIAN_AWK"'...').
# shellcheck disable=SC2034 # used by the scripts that source this file
MEDIAN_AWK='
    function median(list,   v, n, i, j, t) {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }'
