/*
 * The OpenMP peer (libgomp): one empty parallel region per call.
 *
 * Compiled by build.rs with -fopenmp. Nothing else here: the region's body
 * only keeps the compiler from treating it as dead code, so a call measures
 * libgomp's fork (waking or signalling its pooled threads) and its join (the
 * implicit barrier at the end of the region).
 */
#include <omp.h>

/* Written by every thread of the region; never read. */
static volatile int tine_peers_omp_sink;

void tine_peers_omp_empty_fork_join(int threads)
{
#pragma omp parallel num_threads(threads)
    {
        tine_peers_omp_sink = 0;
    }
}

/* The threads the last region actually ran on (libgomp may give fewer than
 * asked for, e.g. when OMP_THREAD_LIMIT is set). */
int tine_peers_omp_team_size(int threads)
{
    int size = 0;
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        size = omp_get_num_threads();
    }
    return size;
}
