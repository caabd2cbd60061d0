/* Time the h-scoring of one host-switch file by mnakao/ORP's library (ORP_Set_aspl).
 *
 * Built and run by scripts/bench_hostswitch_eval.py, linked against ORP's liborp.a (serial) or
 * liborp_threads.a (OpenMP, OMP_NUM_THREADS threads):
 *
 *     orp_h_time FILE MIN_SECONDS MAX_CALLS
 *
 * reads FILE (ORP's format), builds the degrees and the adjacency once, scores the graph once
 * untimed, then times calls one by one until MIN_SECONDS have passed or MAX_CALLS were made
 * (at least one). Prints one JSON object: the file's sizes, the h-diameter, the h-total (the
 * sum over unordered host pairs), the threads, and the seconds of every timed call. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "orp.h"

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: %s FILE MIN_SECONDS MAX_CALLS\n", argv[0]);
    return 2;
  }
  double min_seconds = atof(argv[2]);
  long max_calls = atol(argv[3]);
  if (max_calls < 1) max_calls = 1;

  int n, s, r, lines;
  ORP_Read_property(argv[1], &n, &s, &r, &lines);
  int *edges = malloc(sizeof(int) * 2 * (size_t)lines);
  int *h_deg = malloc(sizeof(int) * (size_t)s);
  int *s_deg = malloc(sizeof(int) * (size_t)s);
  int *rows = malloc(sizeof(int) * (size_t)s * r);
  double *seconds = malloc(sizeof(double) * (size_t)max_calls);
  if (!edges || !h_deg || !s_deg || !rows || !seconds) {
    fprintf(stderr, "%s: out of memory\n", argv[1]);
    return 1;
  }
  ORP_Read_edge(argv[1], edges);
  ORP_Set_degrees(n, s, lines, edges, h_deg, s_deg);
  ORP_Conv_edge2adjacency(n, s, r, lines, edges, rows);

  int diameter = -1;
  long total = -1;
  double aspl = -1;
  ORP_Init_aspl(n, s, r);
  ORP_Set_aspl(h_deg, s_deg, rows, &diameter, &total, &aspl);

  long calls = 0;
  double start = now();
  do {
    double t = now();
    ORP_Set_aspl(h_deg, s_deg, rows, &diameter, &total, &aspl);
    seconds[calls++] = now() - t;
  } while (calls < max_calls && now() - start < min_seconds);
  ORP_Finalize_aspl();

  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("{\"hosts\": %d, \"switches\": %d, \"radix\": %d, \"diameter\": %d, \"total\": %ld, "
         "\"threads\": %d, \"seconds\": [", n, s, r, diameter, total, threads);
  for (long k = 0; k < calls; k++)
    printf("%s%.9e", k ? ", " : "", seconds[k]);
  printf("]}\n");
  free(edges); free(h_deg); free(s_deg); free(rows); free(seconds);
  return 0;
}
