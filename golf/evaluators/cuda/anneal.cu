// Annealing chains that live on the GPU: one block per chain runs many steps of golf's
// annealer (golf.engine.annealer) without returning to the host -- the move (golf.engine.moves), the bit-matrix
// score of the moved graph in shared memory, the Metropolis decision, the undo. The host
// launches it for the steps up to the population's next interaction (golf.engine.population), so a
// chain's step costs a few microseconds instead of a launch round trip.
//
// Compiled after common.cuh. Every decision is the one of golf.engine.annealer, golf.engine.moves and
// golf.kernels.rng in the same order, on the same state arrays (sc, fl, params slots as
// golf.engine.annealer.SC/FL/P), so a chain here walks the chain of the CPU search with the same seed;
// only exp and pow may differ from the host's libm in the last bit. The symmetry is the cyclic
// group or a metacyclic one (golf.group): the moves take its arithmetic (golf.kernels.symmetry)
// and the score reads its twisted rows, as the CPU kernels do; with centre vertices
// (golf.graph) the score also runs the centres as sources, and the moves leave their orbits.
// The step functions are __host__ __device__ and take the block's thread index and size, so
// that a host build can check them against the Python search: with one "thread" a block, or
// with threads and a barrier (GOLF_HOST_BARRIER) that stand for a block's threads and
// __syncthreads.

#include <cooperative_groups.h>

#if defined(__CUDA_ARCH__)
#define GOLF_SYNC() __syncthreads()
#define GOLF_POPC(x) __popcll(x)
#else  // a host build: one thread a block, or threads with a barrier the build defines
#ifdef GOLF_HOST_BARRIER
#define GOLF_SYNC() golf_host_barrier()
#else
#define GOLF_SYNC()
#endif
#define GOLF_POPC(x) __builtin_popcountll(x)
#endif
#define GOLF_HD __host__ __device__

// golf.engine.annealer.SC, FL, P, StopReason
enum { SC_STEP, SC_CUR_D, SC_CUR_TOTAL, SC_CUR_PER, SC_BEST_D, SC_BEST_TOTAL, SC_BEST_PER,
       SC_ACCEPTED, SC_EVALS, SC_BEST_STEP, SC_STOP, SC_FAILED, NSC };
enum { FL_T0, FL_T1, FL_TIME_FRAC, FL_PW, FL_T, FL_FRAC, NFL };
enum { P_STEPS, P_HILL, P_ASPL_PRIORITY, P_TIEBREAK, P_D_BOUND, P_TOTAL_BOUND, P_G,
       P_TRACE_EVERY, P_VOLTAGE, P_SPEC, P_NEAR, P_WEIGHT, P_HOSTS, P_SLIDE, NP };
enum { STOP_STEPS = 1, STOP_BOUNDS = 2, STOP_STUCK = 3 };
#define TRACE_COLS 8
#define TRIES 64

// ---- xoshiro256** (golf.kernels.rng) ------------------------------------------------------
GOLF_HD inline u64 rotl64(u64 x, int k) { return (x << k) | (x >> (64 - k)); }

GOLF_HD inline u64 rng_next(u64* s) {
    u64 result = rotl64(s[1] * 5ULL, 7) * 9ULL;
    u64 t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

GOLF_HD inline double rng_random(u64* s) {
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

GOLF_HD inline int rng_below(u64* s, int k) { return (int)(rng_random(s) * (double)k); }

// Python's modulo (non-negative for n > 0)
GOLF_HD inline int pmod(int a, int n) {
    int r = a % n;
    return r < 0 ? r + n : r;
}

// ---- the symmetry group (golf.kernels.symmetry) ------------------------------------------
// grp: a non-cyclic group Z_a :r Z_b as golf.group.Group.kernel lays it out ([m, a, b, r^0 ..
// r^(b-1) mod a]), or null for the cyclic group Z_g, whose element k moves a vertex by k m ids
GOLF_HD inline int group_inv(int k, const i64* grp) {  // (x, t)^-1 = (-r^-t x, -t)
    int a = (int)grp[1], b = (int)grp[2], x = k / b, t = k - x * b, ti = t == 0 ? 0 : b - t;
    return (int)((a - (grp[3 + ti] * x) % a) % a) * b + ti;
}

// vertex w moved by the element off / m (off a multiple of m; cyclic: (w + off) mod n)
GOLF_HD inline int act(int w, int off, int n, int m, const i64* grp) {
    if (!grp) return w + off >= n ? w + off - n : w + off;
    return group_act(w, off / m, m, (int)grp[1], (int)grp[2], grp + 3);
}

// vertex w moved by the inverse of the element off / m (cyclic: (w - off) mod n)
GOLF_HD inline int act_inv(int w, int off, int n, int m, const i64* grp) {
    if (!grp) return pmod(w - off, n);
    return group_act(w, group_inv(off / m, grp), m, (int)grp[1], (int)grp[2], grp + 3);
}

// ---- grid length limit (golf.grid.Grid.reach layout) --------------------------------------
GOLF_HD inline bool beyond(const int* reach, int u, int v) {
    int dx = reach[3 + 2 * u] - reach[3 + 2 * v], dy = reach[4 + 2 * u] - reach[4 + 2 * v];
    return (dx >= 0 ? dx : -dx) + (dy >= 0 ? dy : -dy) > reach[0];
}

GOLF_HD inline int cell_step(const int* reach, int n, int v, int dx, int dy) {
    int w = reach[1], x = reach[3 + 2 * v] + dx, y = reach[4 + 2 * v] + dy;
    if (x < 0 || x >= w || y < 0 || y >= reach[2]) return -1;
    return reach[3 + 2 * n + y * w + x];
}

GOLF_HD inline int near_cell(const int* reach, int n, int a, u64* st) {
    int r = reach[0], dx, dy;
    while (true) {
        dx = rng_below(st, 2 * r + 1) - r;
        dy = rng_below(st, 2 * r + 1) - r;
        if ((dx >= 0 ? dx : -dx) + (dy >= 0 ? dy : -dy) <= r) break;
    }
    return cell_step(reach, n, a, dx, dy);
}

// ---- symmetric swaps (golf.engine.moves) ---------------------------------------------------------
// n: the vertices the group moves, g m (n but for centre vertices); a slot that holds a centre
// (an id >= n) is never picked, so the orbits at the centres stay as laid
GOLF_HD inline int orbit_slots(int u, int w, int n, int m, const i64* grp, int* rows, int* vals,
                               int k) {
    int iu = u % m, wv = act_inv(w, u - iu, n, m, grp), iw = w % m;
    int uv = act_inv(u, w - iw, n, m, grp);
    rows[k] = iu;
    vals[k] = wv;
    k++;
    if (iw != iu || uv != wv) {
        rows[k] = iw;
        vals[k] = uv;
        k++;
    }
    return k;
}

GOLF_HD inline int add_orbit(int* rows, int* vals, int k, const int* orows, const int* ovals,
                             int ok) {
    for (int p = 0; p < k; p++)
        if (rows[p] == orows[0] && vals[p] == ovals[0]) return k;
    for (int p = 0; p < ok; p++) {
        rows[k] = orows[p];
        vals[k] = ovals[p];
        k++;
    }
    return k;
}

GOLF_HD inline int find_slot(const int* adj, int d, int r, int val) {
    for (int j = 0; j < d; j++)
        if (adj[r * d + j] == val) return j;
    return -1;
}

// undo: [0] count, [1 + 3p ..] (row, slot, old value)
GOLF_HD bool try_swap(int* adj, int m, int d, int n, int a, int b, int c, int e, int x1,
                      int y1, int x2, int y2, i64* undo, const int* reach, const i64* grp) {
    if (x1 == y1 || x2 == y2) return false;
    if (reach && (beyond(reach, x1, y1) || beyond(reach, x2, y2))) return false;
    int rr[4], rv[4], ar[4], av[4], tr[2], tv[2], pos[4];
    int used[4];
    int nr = orbit_slots(a, b, n, m, grp, rr, rv, 0);
    int nt = orbit_slots(c, e, n, m, grp, tr, tv, 0);
    nr = add_orbit(rr, rv, nr, tr, tv, nt);
    int na = orbit_slots(x1, y1, n, m, grp, ar, av, 0);
    nt = orbit_slots(x2, y2, n, m, grp, tr, tv, 0);
    na = add_orbit(ar, av, na, tr, tv, nt);
    if (na != nr) return false;
    for (int p = 0; p < na; p++) {
        for (int q = p + 1; q < na; q++)
            if (ar[p] == ar[q] && av[p] == av[q]) return false;
        int cnt_a = 0, cnt_r = 0;
        for (int q = 0; q < na; q++) {
            if (ar[q] == ar[p]) cnt_a++;
            if (rr[q] == ar[p]) cnt_r++;
        }
        if (cnt_a != cnt_r) return false;
    }
    for (int p = 0; p < nr; p++) {
        int j = find_slot(adj, d, rr[p], rv[p]);
        if (j < 0) return false;
        for (int q = 0; q < p; q++)
            if (rr[q] == rr[p] && pos[q] == j) return false;
        pos[p] = j;
    }
    for (int p = 0; p < na; p++) {
        int r = ar[p];
        for (int j = 0; j < d; j++) {
            if (adj[r * d + j] == av[p]) {
                bool freed = false;
                for (int q = 0; q < nr; q++)
                    if (rr[q] == r && pos[q] == j) freed = true;
                if (!freed) return false;
            }
        }
    }
    for (int q = 0; q < 4; q++) used[q] = 0;
    undo[0] = nr;
    for (int p = 0; p < nr; p++) {
        int r = rr[p];
        for (int q = 0; q < na; q++) {
            if (used[q] == 0 && ar[q] == r) {
                used[q] = 1;
                undo[1 + 3 * p] = r;
                undo[2 + 3 * p] = pos[p];
                undo[3 + 3 * p] = adj[r * d + pos[p]];
                adj[r * d + pos[p]] = (int)av[q];
                break;
            }
        }
    }
    return true;
}

GOLF_HD inline bool swap_at(int* adj, int m, int d, int n, int s1, int s2, int t, int flip,
                            i64* undo, const int* reach, const i64* grp) {
    int b = adj[s1], e = adj[s2];
    if (b < 0 || e < 0 || b >= n || e >= n) return false;  // empty, or a centre's orbit
    int a = s1 / d, c = s2 / d + t * m;
    e = act(e, t * m, n, m, grp);
    if (flip == 0) return try_swap(adj, m, d, n, a, b, c, e, a, c, b, e, undo, reach, grp);
    return try_swap(adj, m, d, n, a, b, c, e, a, e, b, c, undo, reach, grp);
}

GOLF_HD bool propose_swap(int* adj, int m, int d, int n, int g, u64* st, i64* undo,
                          const int* reach, const i64* grp) {
    if (d == 0) return false;
    for (int k = 0; k < TRIES; k++) {
        int s1 = rng_below(st, m) * d;
        s1 += rng_below(st, d);
        if (reach) {
            int c = near_cell(reach, n, s1 / d, st);
            if (c < 0) continue;
            int s2 = (c % m) * d + rng_below(st, d);
            if (swap_at(adj, m, d, n, s1, s2, c / m, 0, undo, reach, grp)) return true;
            continue;
        }
        int s2 = rng_below(st, m) * d;
        s2 += rng_below(st, d);
        int t = rng_below(st, g);
        int flip = rng_below(st, 2);
        if (swap_at(adj, m, d, n, s1, s2, t, flip, undo, reach, grp)) return true;
    }
    return false;
}

GOLF_HD bool propose_voltage(int* adj, int m, int d, int n, int g, u64* st, i64* undo,
                             const int* reach, const i64* grp) {
    if (d == 0 || g < 2) return false;
    for (int k = 0; k < TRIES; k++) {
        int i = rng_below(st, m);
        int j = rng_below(st, d);
        int t = 1 + rng_below(st, g - 1);
        int b = adj[i * d + j];
        if (b < 0 || b >= n) continue;
        int b2 = act(b, t * m, n, m, grp);
        if (b % m == i && b2 == act_inv(i, b - i, n, m, grp))
            continue;  // an orbit inside one class: the same orbit seen from its other end
        if (try_swap(adj, m, d, n, i, b, i, b, i, b2, i, b2, undo, reach, grp)) return true;
    }
    return false;
}

GOLF_HD bool propose_near(int* adj, int m, int d, int n, u64* st, i64* undo,
                          const int* reach, const i64* grp) {
    if (d == 0) return false;
    for (int k = 0; k < TRIES; k++) {
        int s1 = rng_below(st, m) * d;
        s1 += rng_below(st, d);
        int j = rng_below(st, d);
        int j2 = rng_below(st, d);
        int a = s1 / d, b = adj[s1];
        if (b < 0 || b >= n) continue;
        int x = adj[(b % m) * d + j];
        if (x < 0 || x >= n) continue;
        int c = act(x, (b / m) * m, n, m, grp);  // b's neighbour: b's row moved to b
        int y = adj[(c % m) * d + j2];
        if (c == a || y < 0 || y >= n || act(y, (c / m) * m, n, m, grp) == a) continue;
        if (swap_at(adj, m, d, n, s1, (c % m) * d + j2, c / m, 0, undo, reach, grp))
            return true;
    }
    return false;
}

GOLF_HD inline void undo_swap(int* adj, int d, i64* undo) {
    for (int p = (int)undo[0] - 1; p >= 0; p--)
        adj[(int)undo[1 + 3 * p] * d + (int)undo[2 + 3 * p]] = (int)undo[3 + 3 * p];
    undo[0] = 0;
}

// ---- slides on a grid (golf.engine.moves.propose_slide): degrees change -----------------
#define DROP_SHARE 62
// the orbit of a -- b out (none: a < 0), the orbit of x -- y in, in free slots (none: x < 0)
GOLF_HD bool try_rewire(int* adj, int m, int d, int n, int a, int b, int x, int y, i64* undo,
                        const int* reach, const i64* grp) {
    int rr[2], rv[2], ar[2], av[2], pos[2];
    int nr = a < 0 ? 0 : orbit_slots(a, b, n, m, grp, rr, rv, 0), na = 0;
    if (x >= 0) {
        if (x == y || (reach && beyond(reach, x, y))) return false;
        na = orbit_slots(x, y, n, m, grp, ar, av, 0);
        for (int p = 0; p < na; p++)  // a multi-edge, or the removed orbit put back
            if (find_slot(adj, d, ar[p], av[p]) >= 0) return false;
    }
    for (int p = 0; p < nr; p++) {
        int j = find_slot(adj, d, rr[p], rv[p]);
        if (j < 0) return false;
        pos[p] = j;
    }
    int k = 0;
    for (int p = 0; p < nr; p++, k++) {
        undo[1 + 3 * k] = rr[p];
        undo[2 + 3 * k] = pos[p];
        undo[3 + 3 * k] = adj[rr[p] * d + pos[p]];
        adj[rr[p] * d + pos[p]] = -1;
    }
    for (int p = 0; p < na; p++, k++) {
        int j = find_slot(adj, d, ar[p], -1);
        if (j < 0) {  // no room: put back what was changed
            undo[0] = k;
            undo_swap(adj, d, undo);
            return false;
        }
        undo[1 + 3 * k] = ar[p];
        undo[2 + 3 * k] = j;
        undo[3 + 3 * k] = -1;
        adj[ar[p] * d + j] = av[p];
    }
    undo[0] = k;
    return true;
}

// the row of a free base slot drawn uniformly from the count there are (-1: none)
GOLF_HD int free_slot(const int* adj, int m, int d, int count, u64* st) {
    if (count == 0) return -1;
    int k = rng_below(st, count);
    for (int i = 0; i < m * d; i++)
        if (adj[i] == -1 && k-- == 0) return i / d;
    return -1;
}

GOLF_HD bool propose_slide(int* adj, int m, int d, int n, u64* st, i64* undo,
                           const int* reach, const i64* grp) {
    if (d == 0) return false;
    int free = 0;  // a refused draw changes nothing: counted once
    for (int i = 0; i < m * d; i++) free += adj[i] == -1;
    for (int k = 0; k < TRIES; k++) {
        int c = free_slot(adj, m, d, free, st);
        if (c < 0 || rng_below(st, 1000) < DROP_SHARE) {  // a drop
            int i = rng_below(st, m);
            int b = adj[i * d + rng_below(st, d)];
            if (b < 0 || b >= n) continue;
            if (try_rewire(adj, m, d, n, i, b, -1, -1, undo, reach, grp)) return true;
            continue;
        }
        int a = near_cell(reach, n, c, st);
        if (a < 0 || a == c) continue;
        if (rng_below(st, 2) == 0) {  // a fill
            if (try_rewire(adj, m, d, n, -1, -1, c, a, undo, reach, grp)) return true;
            continue;
        }
        int x = adj[(a % m) * d + rng_below(st, d)];
        if (x < 0 || x >= n) continue;
        int b = act(x, (a / m) * m, n, m, grp);  // a's neighbour: a's row moved to a
        if (b == c) continue;
        if (try_rewire(adj, m, d, n, a, b, a, c, undo, reach, grp)) return true;
    }
    return false;
}

GOLF_HD bool propose_move(int* adj, int m, int d, int n, const i64* params, u64* st, i64* undo,
                          const int* reach, const i64* grp) {
    int g = (int)params[P_G];
    if (reach && params[P_SLIDE] > 0 && rng_below(st, 1000) < params[P_SLIDE])
        if (propose_slide(adj, m, d, n, st, undo, reach, grp)) return true;
    if (params[P_VOLTAGE] > 0 && g > 1 && rng_below(st, 1000) < params[P_VOLTAGE])
        if (propose_voltage(adj, m, d, n, g, st, undo, reach, grp)) return true;
    if (params[P_NEAR] > 0 && rng_below(st, 1000) < params[P_NEAR])
        if (propose_near(adj, m, d, n, st, undo, reach, grp)) return true;
    return propose_swap(adj, m, d, n, g, st, undo, reach, grp);
}

// ---- the step (golf.engine.annealer) ---------------------------------------------------------------
GOLF_HD inline bool reached_limit(i64* sc, const i64* params) {
    if (params[P_STEPS] > 0 && sc[SC_STEP] >= params[P_STEPS]) {
        sc[SC_STOP] = STOP_STEPS;
        return true;
    }
    if (sc[SC_BEST_D] == params[P_D_BOUND] && sc[SC_BEST_TOTAL] == params[P_TOTAL_BOUND]) {
        sc[SC_STOP] = STOP_BOUNDS;
        return true;
    }
    return false;
}

GOLF_HD inline double progress(const i64* sc, const double* fl, const i64* params) {
    if (params[P_STEPS] > 0) {
        double f = (double)sc[SC_STEP] / (double)params[P_STEPS];
        return f < 1.0 ? f : 1.0;
    }
    return fl[FL_TIME_FRAC] < 1.0 ? fl[FL_TIME_FRAC] : 1.0;
}

// A step's start before its move (golf.engine.annealer.begin_step): -1 when the chain has stopped,
// else 0 with the temperature set. *tfrac: the fraction of the schedule that fl[FL_T] was last
// computed for in this launch (negative: none), so that a run by time, whose fraction stays
// put during a launch, takes one pow a launch instead of one a step (the same value: pow of
// the same arguments)
GOLF_HD inline double temperature(const double* fl, double frac) {  // geometric cooling
    return fl[FL_T0] * pow(fl[FL_T1] / fl[FL_T0], frac);
}

GOLF_HD int step_head(i64* sc, double* fl, const i64* params, double* tfrac) {
    if (reached_limit(sc, params)) return -1;
    double frac = progress(sc, fl, params);
    fl[FL_FRAC] = frac;
    if (frac != *tfrac) {
        fl[FL_T] = temperature(fl, frac);
        *tfrac = frac;
    }
    return 0;
}

// The rest once the move is proposed (found: a valid move was made): 1, score the moved graph
// with level cap *maxlev; 0, no valid move (step over); -1, stopped (no valid move exists)
GOLF_HD int step_tail(bool found, i64* sc, const i64* params, i64* maxlev) {
    if (!found) {
        sc[SC_STEP]++;
        sc[SC_FAILED]++;
        if (sc[SC_FAILED] > 1000 && sc[SC_FAILED] > sc[SC_STEP] / 2) {
            sc[SC_STOP] = STOP_STUCK;
            return -1;
        }
        return 0;
    }
    *maxlev = params[P_ASPL_PRIORITY] ? 0 : sc[SC_CUR_D];
    return 1;
}

// A whole step's start with one stream (speculate 1): the same returns as step_tail
GOLF_HD int begin_step(int* adj, int m, int d, int n, u64* st, i64* sc, double* fl,
                       const i64* params, i64* undo, const int* reach, const i64* grp,
                       i64* maxlev, double* tfrac) {
    if (step_head(sc, fl, params, tfrac) < 0) return -1;
    bool found = propose_move(adj, m, d, n, params, st, undo, reach, grp);
    return step_tail(found, sc, params, maxlev);
}

// The Metropolis decision on the score out before its random draw (golf.engine.annealer.accept):
// V_REJECT, V_ACCEPT, or V_DRAW: accepted when a uniform draw of the decisions' stream is
// below *x; params[P_WEIGHT] turns the score's sums into the graph's (g, or 1 where the
// score weighs its sources itself: centre forms)
enum { V_REJECT, V_ACCEPT, V_DRAW };
GOLF_HD int verdict(const i64* out, const i64* sc, const double* fl, const i64* params,
                    double* x) {
    if (out[3] != ST_OK) return V_REJECT;
    i64 g = params[P_G], w = params[P_WEIGHT], new_d = out[0], cur_d = sc[SC_CUR_D];
    if (!params[P_ASPL_PRIORITY]) {
        if (new_d > cur_d) return V_REJECT;
        if (new_d < cur_d) return V_ACCEPT;
    }
    double de = (double)(w * out[1] / 2 - sc[SC_CUR_TOTAL]) / (double)g;
    if (params[P_TIEBREAK] && cur_d > params[P_D_BOUND])
        de += fl[FL_PW] * (1.0 - fl[FL_FRAC]) * ((double)(w * out[2] - sc[SC_CUR_PER]) /
                                                 (double)g);
    if (de <= 0) return V_ACCEPT;
    if (params[P_HILL]) return V_REJECT;
    *x = exp(-de / fl[FL_T]);
    return V_DRAW;
}

// the move is taken; returns true when it is the chain's new best (the caller copies adj)
GOLF_HD bool take_move(const i64* out, i64* sc, const i64* params) {
    i64 w = params[P_WEIGHT];
    sc[SC_ACCEPTED]++;
    sc[SC_CUR_D] = out[0];
    sc[SC_CUR_TOTAL] = w * out[1] / 2;
    sc[SC_CUR_PER] = w * out[2];
    if (sc[SC_CUR_D] < sc[SC_BEST_D] ||
        (sc[SC_CUR_D] == sc[SC_BEST_D] && sc[SC_CUR_TOTAL] < sc[SC_BEST_TOTAL])) {
        sc[SC_BEST_D] = sc[SC_CUR_D];
        sc[SC_BEST_TOTAL] = sc[SC_CUR_TOTAL];
        sc[SC_BEST_PER] = sc[SC_CUR_PER];
        sc[SC_BEST_STEP] = sc[SC_STEP];
        return true;
    }
    return false;
}

// a trace row when the step count is a multiple of params[P_TRACE_EVERY]; *next: the
// smallest such multiple not yet passed (kept so that a step takes no 64-bit division)
GOLF_HD inline i64 trace_row(double* trace, i64 ntrace, i64 cap, const i64* sc,
                             const double* fl, const i64* params, i64* next) {
    i64 step = sc[SC_STEP];
    if (step < *next) return ntrace;
    while (*next < step) *next += params[P_TRACE_EVERY];  // steps without a move passed it
    if (step != *next) return ntrace;
    *next += params[P_TRACE_EVERY];
    if (ntrace < cap) {
        double* row = trace + ntrace * TRACE_COLS;
        row[0] = (double)sc[SC_STEP];
        row[1] = fl[FL_T];
        row[2] = (double)sc[SC_CUR_D];
        row[3] = (double)sc[SC_CUR_TOTAL];
        row[4] = (double)sc[SC_BEST_D];
        row[5] = (double)sc[SC_BEST_TOTAL];
        row[6] = (double)sc[SC_ACCEPTED];
        row[7] = (double)sc[SC_EVALS];
        ntrace++;
    }
    return ntrace;
}

// The end of a scored step (golf.engine.annealer.end_step without the undo): the decision by the
// verdict v (and x) on the score out, the counters, chain k's trace row. 0: rejected (the
// caller undoes the move), 1: taken, 2: taken and the chain's new best (the caller copies
// the graph)
GOLF_HD int decide(int v, double x, const i64* out, u64* st, i64* sc, const double* fl,
                   const i64* params, int k, double* trace, i64* nrow, i64 cap, i64* next_row) {
    sc[SC_EVALS]++;
    int r = 0;
    if (v == V_DRAW ? rng_random(st) < x : v == V_ACCEPT)
        r = take_move(out, sc, params) ? 2 : 1;
    sc[SC_STEP]++;
    if (k == 0) *nrow = trace_row(trace, *nrow, cap, sc, fl, params, next_row);
    return r;
}

// ---- the score (golf.evaluators.bitset's result for all m base sources at once) -----------
// Block-wide sum or AND of every thread's x, through red[0 .. nt) (nt a power of two, at least
// 32). On the GPU: within each warp by shuffles, then every thread combines the warps'
// partials, which reduction `par` (0 or 1) keeps in its half of red: one barrier a reduction,
// as no thread can write a half again before every thread has passed the barrier of the
// reduction in between, that is, has read it (callers alternate par, and a block barrier
// separates their last reduction from the next caller's first). In a host build: a tree
// through red (three barriers; the same exact result: sums and ANDs of integers).
GOLF_HD inline u64 combine(u64 a, u64 b, bool is_and) { return is_and ? (a & b) : (a + b); }

GOLF_HD inline u64 block_reduce(u64 x, u64* red, int tid, int nt, bool is_and, int par) {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) x = combine(x, __shfl_xor_sync(FULL, x, o), is_and);
    red += par * (nt >> 1);  // nt / 2 >= nt / 32 words a half
    if ((tid & 31) == 0) red[tid >> 5] = x;
    __syncthreads();
    x = red[0];
    for (int w = 1; w < (nt >> 5); w++) x = combine(x, red[w], is_and);
    return x;
#else
    red[tid] = x;
    GOLF_SYNC();
    for (int s = nt >> 1; s > 0; s >>= 1) {
        if (tid < s) red[tid] = combine(red[tid], red[tid + s], is_and);
        GOLF_SYNC();
    }
    u64 r = red[0];
    GOLF_SYNC();
    return r;
#endif
}

// The ints of a block's rows besides the graph (tw): a non-cyclic group's b m d twisted row
// slots, then c d slots of the centres' rows
GOLF_HD inline int tw_ints(const i64* grp, int m, int d, int c) {
    return (grp ? (int)grp[2] * m * d : 0) + c * d;
}

// Row t m + i of a non-cyclic group grp: base row i moved by the element (0, t) = t
// (golf.kernels.symmetry.twist_rows), written into tw (b m d ints) by the block: the rows of a
// graph cyclic under the rotation by b m. Ids from nsym = g m on are centres, which every
// element fixes.
GOLF_HD inline void twist_chain(const int* adj, const i64* grp, int* tw, int m, int d, int nsym,
                                int tid, int nt) {
    int a = (int)grp[1], b = (int)grp[2], md = m * d;
    for (int idx = tid; idx < b * md; idx += nt) {
        int t = idx / md, w = adj[idx - t * md];
        tw[idx] = w < 0 ? -1 : w >= nsym ? w : group_act(w, t, m, a, b, grp + 3);
    }
}

// ---- centre vertices (golf.graph: n = g m + c; ids nsym = g m .. n-1 are the centres) -----
// The score of a centre form keeps the graph's own numbering: row v < nsym is its base (or
// twisted) row moved to v, with the centre ids in it kept, and row nsym + z the centre z's,
// which holds the g vertices k m + i of every orbit whose base row i holds z. A move never
// touches an orbit at a centre (a slot holding an id >= nsym is never picked) nor writes a
// centre id, so the centres' rows stay those of the graph they were built from while a chain
// moves: the block builds them once for a chain (centre_rows), into cr (c d ints, -1 padded).
GOLF_HD inline void centre_rows(const int* adj, int m, int d, int nsym, int c, int* cr, int tid,
                                int nt) {
    int g = nsym / m;
    for (int z = tid; z < c; z += nt) {
        int* row = cr + z * d;
        int p = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < d; j++)
                if (adj[i * d + j] == nsym + z)
                    for (int k = 0; k < g && p < d; k++) row[p++] = k * m + i;
        for (; p < d; p++) row[p] = -1;
    }
}

// word w of row v at the next level (next_word with the centres): its word in A OR its
// neighbours', the row's ids below nsym rotated by off (mod nsym), the centres' as they are
GOLF_HD inline u64 centre_word(const u64* A, const int* row, int d, u32 off, u32 nsym, u32 W,
                               u32 v, u32 w) {
    u64 acc = A[v * W + w];
    for (int j = 0; j < d; j++) {
        int x = row[j];
        if (x >= 0) {
            u32 u = (u32)x;
            if (u < nsym) {
                u += off;
                if (u >= nsym) u -= nsym;
            }
            acc |= A[u * W + w];
        }
    }
    return acc;
}

// score_chain's out for a centre form, as golf.evaluators.bitset._score_centres and
// golf.kernels.merge.merge_parts make it of two parts: the m base sources (column words 0 ..
// W-2, padding columns full from the start), each standing for its orbit of g, and the c <= 64
// centres (word W-1), one each. Both parts take each level at once; each level's reduction
// sums the two parts' bit counts packed in one word (the base part's below bit 32: a matrix of
// shared memory holds far fewer than 2^32 bits). Their distance sums and the sources at the
// eccentricity (the columns not full a level before the last, where a part that ended sooner
// has none) add up weighted g and 1. rows, lay: the base rows (lay = m) or a group's twisted
// rows (lay = b m); cr: the centres' rows (centre_rows). A move that does not score (status
// not OK) is rejected whatever its level, so the loop stops at the first level at which a part
// cannot end well.
GOLF_HD void score_centres(const int* rows, u32 lay, const int* cr, int m, int d, int n, int c,
                           int W, i64 maxlev, u64* A, u64* B, u64* red, int tid, int nt,
                           i64* out) {
    u32 nsym = (u32)(n - c), Wb = (u32)(W - 1), items = (u32)n * (u32)W;
    i64 g = nsym / m;
    for (u32 idx = tid; idx < items; idx += nt) {
        u32 v = idx / W, w = idx - v * W;
        A[idx] = w < Wb ? init_word(v, w, 0u, (u32)m) : init_word(v, 0u, nsym, (u32)c);
    }
    GOLF_SYNC();
    i64 tb = (i64)n * Wb * 64, tc = (i64)n * 64;  // a part's bits, and those reached
    i64 rb = m + (i64)n * ((i64)Wb * 64 - m), rc = c + (i64)n * (64 - c);
    i64 dist = g * (tb - rb) + (tc - rc), level = 0;
    int status = ST_OK, par = 0;
    while (rb + rc < tb + tc) {
        if (maxlev > 0 && level == maxlev) {
            status = ST_EXCEEDED;
            break;
        }
        level++;
        u64 local = 0;
        for (u32 idx = tid; idx < items; idx += nt) {
            u32 v = idx / W, w = idx - v * W, off = 0;
            const int* row;
            if (v < nsym) {
                u32 i = v % lay;
                row = rows + (i64)i * d;
                off = v - i;
            } else {
                row = cr + (i64)(v - nsym) * d;
            }
            u64 acc = centre_word(A, row, d, off, nsym, (u32)W, v, w);
            B[idx] = acc;
            u64 bits = (u64)GOLF_POPC(acc);
            local += w < Wb ? bits : bits << 32;
        }
        u64 cnt = block_reduce(local, red, tid, nt, false, par);
        par ^= 1;
        i64 cb = (i64)(cnt & 0xffffffffULL), cc = (i64)(cnt >> 32);
        if (cb + cc == rb + rc) {
            status = ST_DISCONNECTED;
            break;
        }
        rb = cb;
        rc = cc;
        dist += g * (tb - rb) + (tc - rc);
        u64* t = A;
        A = B;
        B = t;
    }
    i64 n_at = 0;
    if (status == ST_OK) {
        if (level == 0) {
            n_at = g * m + c;
        } else {  // the columns not yet full one level before the last (now in B)
            for (u32 w = 0; w < (u32)W; w++) {
                u64 acc = ~0ULL;
                for (u32 v = tid; v < (u32)n; v += nt) acc &= B[v * W + w];
                i64 nf = GOLF_POPC(~block_reduce(acc, red, tid, nt, true, par));
                par ^= 1;
                n_at += w < Wb ? g * nf : nf;
            }
        }
    }
    if (tid == 0) {
        out[0] = level;
        out[1] = status == ST_OK ? dist : 0;
        out[2] = status == ST_OK ? n_at : 0;
        out[3] = status;
    }
    GOLF_SYNC();
}

// out = [eccentricity (levels), distance sum over the base sources, sources at that
// eccentricity, status] as the CPU evaluator gives them; A and B hold n*W words each. A
// non-cyclic group grp: the levels read the b m twisted rows (twist_chain), which the block
// first writes into tw; the sources stay the m base vertices. With c > 0 centres (W - 1 words
// of base sources and the centres' word): score_centres, which reads the centres' rows from tw
// after the twisted rows (centre_rows).
GOLF_HD void score_chain(const int* adj, const i64* grp, int* tw, int m, int d, int n, int c,
                         int W, i64 maxlev, u64* A, u64* B, u64* red, int tid, int nt,
                         i64* out) {
    u32 items = (u32)n * (u32)W, ns = (u32)m, lay = (u32)m;
    const int* rows = adj;
    if (grp) {
        twist_chain(adj, grp, tw, m, d, n - c, tid, nt);
        rows = tw;
        lay = (u32)(grp[2] * m);
    }
    if (c > 0) {
        score_centres(rows, lay, tw + tw_ints(grp, m, d, 0), m, d, n, c, W, maxlev, A, B, red,
                      tid, nt, out);
        return;
    }
    for (u32 idx = tid; idx < items; idx += nt) A[idx] = init_word(idx / W, idx % W, 0u, ns);
    GOLF_SYNC();
    i64 total = (i64)items * 64, reached = (i64)ns + (i64)n * ((i64)W * 64 - ns);
    i64 dist = total - reached, level = 0;
    int status = ST_OK, par = 0;
    // this thread's items are idx = tid, tid + nt, ...; with one word a row (W == 1) the row
    // v = idx and the row it reads, i = v mod lay, advance by nt and nt mod lay, without a
    // division
    u32 i_first = W == 1 ? (u32)tid % lay : 0u, i_step = W == 1 ? (u32)nt % lay : 0u;
    while (reached < total) {
        if (maxlev > 0 && level == maxlev) {
            status = ST_EXCEEDED;
            break;
        }
        level++;
        u64 local = 0;
        u32 i = i_first;
        for (u32 idx = tid; idx < items; idx += nt) {
            u32 v = idx, w = 0;
            if (W == 1) {
                if (idx != (u32)tid) {
                    i += i_step;
                    if (i >= lay) i -= lay;
                }
            } else {
                v = idx / W;
                w = idx - v * W;
                i = v % lay;
            }
            u64 acc = next_word(A, rows + (i64)i * d, d, v - i, (u32)n, (u32)W, v, w);
            B[idx] = acc;
            local += GOLF_POPC(acc);
        }
        i64 cnt = (i64)block_reduce(local, red, tid, nt, false, par);
        par ^= 1;
        if (cnt == reached) {
            status = ST_DISCONNECTED;
            break;
        }
        reached = cnt;
        dist += total - reached;
        u64* t = A;
        A = B;
        B = t;
    }
    i64 n_at = 0;
    if (status == ST_OK) {
        if (level == 0) {
            n_at = ns;
        } else {  // the columns not yet full one level before the last (now in B)
            for (int w = 0; w < W; w++) {
                u64 acc = ~0ULL;
                for (u32 v = tid; v < (u32)n; v += nt) acc &= B[v * W + w];
                n_at += GOLF_POPC(~block_reduce(acc, red, tid, nt, true, par));
                par ^= 1;
            }
        }
    }
    if (tid == 0) {
        out[0] = level;
        out[1] = status == ST_OK ? dist : 0;
        out[2] = status == ST_OK ? n_at : 0;
        out[3] = status;
    }
    GOLF_SYNC();
}

// ---- a chain's steps and the kernel ------------------------------------------------------
// What the threads of a block share besides the matrices: what thread 0 decides for them
// (todo is double-buffered: thread 0 writes step s's value while no thread can still read
// step s-2's), the score, the undo record and the decision of a speculating round
// (and, with centres, the chain whose centres' rows the block holds; -1: none yet)
struct ChainState {
    i64 undo[16], out[4], maxlev;
    int todo[2], best_now, taken, ok, used, cen_q;
};

// Thread 0's copies of chain k's main RNG state (st: its first 4 words), counters, floats
// and the parameters, and their way back: fixed-index arrays, registers on the GPU
GOLF_HD inline void load_chain(u64* st, i64* sc, double* fl, i64* params, const u64* gst,
                               const i64* scs, const double* fls, const i64* gparams, int k) {
    for (int i = 0; i < 4; i++) st[i] = gst[i];
    for (int i = 0; i < NSC; i++) sc[i] = scs[(i64)NSC * k + i];
    for (int i = 0; i < NFL; i++) fl[i] = fls[(i64)NFL * k + i];
    for (int i = 0; i < NP; i++) params[i] = gparams[i];
}
GOLF_HD inline void store_chain(const u64* st, const i64* sc, const double* fl, u64* gst,
                                i64* scs, double* fls, int k) {
    for (int i = 0; i < 4; i++) gst[i] = st[i];
    for (int i = 0; i < NSC; i++) scs[(i64)NSC * k + i] = sc[i];
    for (int i = 0; i < NFL; i++) fls[(i64)NFL * k + i] = fl[i];
}

// nsteps steps of chain k, as golf.engine.population.batch_chunk takes them between two
// interactions, by the nt threads of a block (tid: this thread), with one RNG stream
// (params[P_SPEC] = 1). The chain's graph adjs[k] (m x d), best graph bests[k], RNG state
// sts[k] (4 words), counters scs[k] (NSC) and floats fls[k] (NFL); params (NP), reach
// (grids, else null) and grp (a non-cyclic group, else null) are shared by all chains; n
// vertices, of which the last cen are centres (golf.graph; the moves take the other
// n - cen). Chain 0 writes trace rows (TRACE_COLS doubles) at trace[*ntrace ..], up to cap
// rows. A, B: n W words each, red: nt words, adj: m d ints, tw: a group's b m d twisted row
// slots, then the centres' cen d row slots (tw_ints), cs: the block's shared state. Thread 0
// takes every decision; it keeps the RNG, the counters, the floats and the parameters in its
// own (fixed-index) arrays, registers on the GPU, for the whole launch.
GOLF_HD void chain_steps(int k, int tid, int nt, int* adjs, int* bests, u64* sts, i64* scs,
        double* fls, const i64* gparams, const int* reach, const i64* grp, int m, int d, int n,
        int cen, int W, i64 nsteps, double* trace, i64* ntrace, i64 cap, u64* A, u64* B,
        u64* red, int* adj, int* tw, ChainState& cs) {
    int* gadj = adjs + (i64)k * m * d;
    int* gbest = bests + (i64)k * m * d;
    u64 st[4];
    i64 sc[NSC], params[NP];
    double fl[NFL], tfrac = -1.0;
    for (int i = tid; i < m * d; i += nt) adj[i] = gadj[i];
    if (tid == 0) load_chain(st, sc, fl, params, sts + 4 * (i64)k, scs, fls, gparams, k);
    i64 nrow = (tid == 0 && k == 0) ? *ntrace : 0, next_row = 0;
    if (tid == 0 && k == 0) {
        i64 every = params[P_TRACE_EVERY];
        next_row = (sc[SC_STEP] + every - 1) / every * every;
    }
    GOLF_SYNC();
    if (cen > 0) {  // the centres' rows, for the whole launch (centre_rows)
        centre_rows(adj, m, d, n - cen, cen, tw + tw_ints(grp, m, d, 0), tid, nt);
        GOLF_SYNC();
    }
    for (i64 s = 0; s < nsteps; s++) {
        int b = (int)(s & 1);
        if (tid == 0)
            cs.todo[b] = begin_step(adj, m, d, n - cen, st, sc, fl, params, cs.undo, reach,
                                    grp, &cs.maxlev, &tfrac);
        GOLF_SYNC();
        if (cs.todo[b] <= 0) continue;
        score_chain(adj, grp, tw, m, d, n, cen, W, cs.maxlev, A, B, red, tid, nt, cs.out);
        if (tid == 0) {
            double x = 0;
            int v = verdict(cs.out, sc, fl, params, &x);
            int r = decide(v, x, cs.out, st, sc, fl, params, k, trace, &nrow, cap, &next_row);
            if (r == 0) undo_swap(adj, d, cs.undo);
            cs.best_now = r == 2;
        }
        GOLF_SYNC();
        if (cs.best_now) {  // the same for every thread
            for (int i = tid; i < m * d; i += nt) gbest[i] = adj[i];
            GOLF_SYNC();
        }
    }
    GOLF_SYNC();
    for (int i = tid; i < m * d; i += nt) gadj[i] = adj[i];
    if (tid == 0) {
        store_chain(st, sc, fl, sts + 4 * (i64)k, scs, fls, k);
        if (k == 0) *ntrace = nrow;
    }
}

// ---- speculating chains: a chain's next K candidate moves scored at once ------------------
// With K proposal streams (params[P_SPEC] = K > 1, golf.engine.annealer.chain_streams) step s moves by
// stream s mod K, so the moves of a chain's next K steps can all be made from its current
// graph and scored at the same time, by K blocks of a cooperative grid, each on its own copy.
// The chain's decider then takes them in order as the chain's steps: candidate c's score
// decides step s0 + c only while every candidate before it was rejected (the graph is still
// the one it was moved from); the first one accepted becomes the graph and ends the round, the
// later ones are dropped with their streams untouched (as if never drawn). This walks the
// chain of golf.engine.annealer with the same streams, and a round of K blocks advances it by up to K
// steps at the cost of about one: at the acceptance rates of a run's later part (a few per
// cent) a chain gets many times deeper in the same time.
//
// A round: every block proposes and scores its candidates (q, c) (chain q, c < the round's
// kk), a grid barrier, every chain's decider (block q mod G) takes them in order, a grid
// barrier. What crosses blocks lives in global memory: ws, a chain's round (WS_*); cand, a
// candidate's score out[4] and whether its move was valid; cand_st, its stream after the
// move; cand_adj, its moved graph; count[2], the chains still going after a round (reset
// alternately). Each chain's RNG words are sts[q] (4 + 4 K), its counters and floats scs[q]
// and fls[q] as in chain_steps, which the decider's thread 0 copies for a round's decisions.
enum { WS_S0, WS_KK, WS_MAXLEV, WS_DONE, WS_ACTIVE, WS_NROW, WS_NEXT_ROW, WS_N };
enum { CAND_OK = 4, CAND_N };

#if defined(__CUDA_ARCH__)
#define GOLF_GRID_SYNC() cooperative_groups::this_grid().sync()
#elif defined(GOLF_HOST_BARRIER)  // a threaded host build: a barrier of all blocks' threads
#define GOLF_GRID_SYNC() golf_host_grid_barrier()
#else  // a host build runs the grid as one block of one thread
#define GOLF_GRID_SYNC()
#endif

// A chain's next round (kk candidates from step s0, the level cap), or the chain has ended
GOLF_HD void next_round(i64* w, const i64* sc, const i64* params, i64 K, i64 nsteps,
                        bool stopped) {
    w[WS_ACTIVE] = !stopped && w[WS_DONE] < nsteps;
    w[WS_KK] = nsteps - w[WS_DONE] < K ? nsteps - w[WS_DONE] : K;
    w[WS_S0] = sc[SC_STEP];
    w[WS_MAXLEV] = params[P_ASPL_PRIORITY] ? 0 : sc[SC_CUR_D];
}

// Candidate c of chain q, by a block: the move by stream (s0 + c) mod K on a copy of the
// chain's graph (adj, shared), and its score when the move was valid. With centres the block
// builds chain q's centres' rows when the ones it holds are another chain's (no move of the
// launch changes them: centre_rows)
GOLF_HD void spec_candidate(int q, int c, int tid, int nt, const int* adjs, const u64* sts,
        const i64* params, const int* reach, const i64* grp, int m, int d, int n, int cen,
        int W, int K, const i64* ws, i64* cand, u64* cand_st, int* cand_adj, u64* A, u64* B,
        u64* red, int* adj, int* tw, ChainState& cs) {
    const i64* w = ws + (i64)WS_N * q;
    if (!w[WS_ACTIVE] || c >= w[WS_KK]) return;  // the same for every thread
    int md = m * d;
    i64 idx = (i64)q * K + c;
    GOLF_SYNC();  // the block's last candidate is done with adj, cs and the matrices
    for (int i = tid; i < md; i += nt) adj[i] = adjs[(i64)q * md + i];
    GOLF_SYNC();
    if (cen > 0 && cs.cen_q != q) {  // every thread has read cen_q before thread 0 sets it
        centre_rows(adj, m, d, n - cen, cen, tw + tw_ints(grp, m, d, 0), tid, nt);
        GOLF_SYNC();
        if (tid == 0) cs.cen_q = q;
    }
    if (tid == 0) {
        const u64* strm = sts + (4 + 4 * (i64)K) * q + 4 + 4 * ((w[WS_S0] + c) % K);
        u64 r[4] = {strm[0], strm[1], strm[2], strm[3]};
        cs.ok = propose_move(adj, m, d, n - cen, params, r, cs.undo, reach, grp) ? 1 : 0;
        cand[CAND_N * idx + CAND_OK] = cs.ok;
        for (int i = 0; i < 4; i++) cand_st[4 * idx + i] = r[i];
    }
    GOLF_SYNC();
    if (!cs.ok) return;
    score_chain(adj, grp, tw, m, d, n, cen, W, w[WS_MAXLEV], A, B, red, tid, nt,
                cand + CAND_N * idx);
    for (int i = tid; i < md; i += nt) cand_adj[idx * md + i] = adj[i];
}

// Chain q's decision on its round's candidates, in order. What does not depend on the order
// is done by the block at once: while no candidate is taken, the chain's current graph, score
// and best stay put and candidate c is step s0 + c, so thread c can find c's temperature and
// verdict (dec: a row of DEC_N words a candidate, shared memory). Thread 0 then walks them in
// order on copies of the chain's state (registers on the GPU): counters, stops, the draws of
// the decisions' stream. The block then moves the streams on and copies the graph taken.
// Returns whether the chain goes on.
enum { DEC_V = CAND_N, DEC_FRAC, DEC_T, DEC_X, DEC_N };
union Bits {  // a double's bits in an i64 slot of dec
    i64 i;
    double x;
};
GOLF_HD inline double as_double(i64 b) {
    Bits u;
    u.i = b;
    return u.x;
}
GOLF_HD inline i64 as_bits(double x) {
    Bits u;
    u.x = x;
    return u.i;
}

GOLF_HD bool spec_decide(int q, int tid, int nt, int* adjs, int* bests, u64* sts, i64* scs,
        double* fls, const i64* gparams, int m, int d, int K, i64 nsteps, i64* ws,
        const i64* cand, const u64* cand_st, const int* cand_adj, double* trace, i64* ntrace,
        i64 cap, i64* dec, ChainState& cs) {
    i64* w = ws + (i64)WS_N * q;
    bool active = w[WS_ACTIVE] != 0;
    i64 kk = w[WS_KK], s0 = w[WS_S0];
    GOLF_SYNC();  // every thread has read them before thread 0 writes the next round's
    if (!active) return false;
    int md = m * d;
    u64* gst = sts + (4 + 4 * (i64)K) * q;
    for (i64 c = tid; c < kk; c += nt) {  // candidate c's temperature and verdict
        const i64* cd = cand + CAND_N * ((i64)q * K + c);
        i64* row = dec + DEC_N * c;
        i64 sc[NSC];
        double fl[NFL], x = 0;
        for (int i = 0; i < NSC; i++) sc[i] = scs[(i64)NSC * q + i];
        for (int i = 0; i < NFL; i++) fl[i] = fls[(i64)NFL * q + i];
        sc[SC_STEP] = s0 + c;
        fl[FL_FRAC] = progress(sc, fl, gparams);
        fl[FL_T] = temperature(fl, fl[FL_FRAC]);
        for (int i = 0; i < CAND_N; i++) row[i] = cd[i];
        row[DEC_V] = cd[CAND_OK] ? verdict(cd, sc, fl, gparams, &x) : V_REJECT;
        row[DEC_FRAC] = as_bits(fl[FL_FRAC]);
        row[DEC_T] = as_bits(fl[FL_T]);
        row[DEC_X] = as_bits(x);
    }
    GOLF_SYNC();
    if (tid == 0) {
        u64 st[4];
        i64 sc[NSC], params[NP], used = 0, maxlev = 0, nrow = w[WS_NROW],
            next_row = w[WS_NEXT_ROW];
        double fl[NFL];
        load_chain(st, sc, fl, params, gst, scs, fls, gparams, q);
        int taken = -1, best = 0;
        bool stopped = false;
        for (i64 c = 0; c < kk; c++) {
            const i64* row = dec + DEC_N * c;
            if (reached_limit(sc, params)) {  // step_head, its temperature found above
                stopped = true;
                break;
            }
            fl[FL_FRAC] = as_double(row[DEC_FRAC]);
            fl[FL_T] = as_double(row[DEC_T]);
            used = c + 1;
            int todo = step_tail(row[CAND_OK] != 0, sc, params, &maxlev);
            if (todo < 0) {
                stopped = true;
                break;
            }
            if (todo == 0) continue;
            int r = decide((int)row[DEC_V], as_double(row[DEC_X]), row, st, sc, fl, params, q,
                           trace, &nrow, cap, &next_row);
            if (r > 0) {
                taken = (int)c;
                best = r == 2;
                break;
            }
        }
        store_chain(st, sc, fl, gst, scs, fls, q);
        w[WS_NROW] = nrow;
        w[WS_NEXT_ROW] = next_row;
        if (q == 0) *ntrace = nrow;
        w[WS_DONE] += used;
        next_round(w, sc, params, K, nsteps, stopped);
        cs.used = (int)used;
        cs.taken = taken;
        cs.best_now = best;
    }
    GOLF_SYNC();
    for (int i = tid; i < 4 * cs.used; i += nt)  // the streams of the steps taken move on
        gst[4 + 4 * ((s0 + i / 4) % K) + i % 4] = cand_st[4 * ((i64)q * K + i / 4) + i % 4];
    if (cs.taken >= 0) {
        const int* src = cand_adj + ((i64)q * K + cs.taken) * md;
        for (int i = tid; i < md; i += nt) adjs[(i64)q * md + i] = src[i];
        for (int i = tid; cs.best_now && i < md; i += nt) bests[(i64)q * md + i] = src[i];
    }
    bool going = w[WS_ACTIVE] != 0;
    GOLF_SYNC();
    return going;
}

// nsteps steps of each of C speculating chains by block `block` of G (the whole grid's
// rounds; count[0] = 0 at the start). grp, cen, A, B, red, adj, tw, cs: as in chain_steps;
// dec: K DEC_N words of the block's (spec_decide).
GOLF_HD void spec_chains(int block, int G, int tid, int nt, int C, int* adjs, int* bests,
        u64* sts, i64* scs, double* fls, const i64* params, const int* reach, const i64* grp,
        int m, int d, int n, int cen, int W, i64 nsteps, double* trace, i64* ntrace, i64 cap,
        i64* ws, i64* cand, u64* cand_st, int* cand_adj, u64* count, u64* A, u64* B, u64* red,
        int* adj, int* tw, i64* dec, ChainState& cs) {
    int K = (int)params[P_SPEC];
    if (tid == 0) cs.cen_q = -1;  // no centres' rows yet (read after the grid barrier)
    for (int q = block; tid == 0 && q < C; q += G) {  // the first rounds
        i64* w = ws + (i64)WS_N * q;
        const i64* sc = scs + (i64)NSC * q;
        w[WS_DONE] = 0;
        if (q == 0) {
            i64 every = params[P_TRACE_EVERY];
            w[WS_NROW] = *ntrace;
            w[WS_NEXT_ROW] = (sc[SC_STEP] + every - 1) / every * every;
        }
        next_round(w, sc, params, K, nsteps, false);
    }
    GOLF_GRID_SYNC();
    for (int round = 0;; round++) {
        for (i64 p = block; p < (i64)C * K; p += G)
            spec_candidate((int)(p / K), (int)(p % K), tid, nt, adjs, sts, params, reach, grp,
                           m, d, n, cen, W, K, ws, cand, cand_st, cand_adj, A, B, red, adj, tw,
                           cs);
        GOLF_GRID_SYNC();
        if (block == 0 && tid == 0) count[(round + 1) & 1] = 0;
        u64 going = 0;
        for (int q = block; q < C; q += G)
            going += spec_decide(q, tid, nt, adjs, bests, sts, scs, fls, params, m, d,
                                 K, nsteps, ws, cand, cand_st, cand_adj, trace, ntrace, cap,
                                 dec, cs) ? 1 : 0;
        if (tid == 0 && going > 0) {
#if defined(__CUDA_ARCH__)
            atomicAdd((unsigned long long*)(count + (round & 1)), (unsigned long long)going);
#else
            count[round & 1] += going;
#endif
        }
        GOLF_GRID_SYNC();
        if (*(volatile u64*)(count + (round & 1)) == 0) break;
    }
}

// A block's dynamic shared memory: 2 n W + blockDim.x words (the matrices A and B, the
// reduction words), then m d ints (the graph) and tws ints (tw_ints: a group's twisted rows,
// the centres' rows), then for anneal_spec K DEC_N words (8-byte aligned)
struct BlockMem {
    u64 *A, *B, *red;
    int *adj, *tw;
    i64* dec;
};
__device__ inline BlockMem block_mem(u64* smem, int n, int W, int nt, int md, int tws) {
    u64* B = smem + (i64)n * W;
    u64* red = B + (i64)n * W;
    int* adj = (int*)(red + nt);
    return {smem, B, red, adj, adj + md, (i64*)(red + nt + (md + tws + 1) / 2)};
}

// The kernels: the cyclic group's (grp null, which compiles the group's arithmetic away), a
// non-cyclic group's (the name's _group; one more argument, grp as golf.group.Group.kernel
// lays it out) and a centre form's (_centres: grp, has_grp 0 for the cyclic group, and the
// number of centres cen, 1 to 64, the last cen of the n vertices; W counts the centres' word).
// Chains of a block: the arguments of anneal_chains; speculating chains: anneal_spec's.
#define CHAINS_ARGS int* adjs, int* bests, u64* sts, i64* scs, double* fls, const i64* params, \
    const int* reach, int has_reach, int m, int d, int n, int W, i64 nsteps, double* trace, \
    i64* ntrace, i64 cap
#define CHAINS_PASS adjs, bests, sts, scs, fls, params, reach, has_reach, m, d, n, W, nsteps, \
    trace, ntrace, cap
#define SPEC_ARGS int C, CHAINS_ARGS, i64* ws, i64* cand, u64* cand_st, int* cand_adj, u64* count
#define SPEC_PASS C, CHAINS_PASS, ws, cand, cand_st, cand_adj, count

// One block per chain (blockDim.x a power of two, at most 512: thread 0's state lives in
// registers, up to 128 a thread); has_reach 0: a general graph
__device__ __forceinline__ void block_chains(CHAINS_ARGS, const i64* grp, int cen) {
    extern __shared__ u64 smem[];
    __shared__ ChainState cs;
    BlockMem s = block_mem(smem, n, W, blockDim.x, m * d, tw_ints(grp, m, d, cen));
    chain_steps(blockIdx.x, threadIdx.x, blockDim.x, adjs, bests, sts, scs, fls, params,
                has_reach ? reach : nullptr, grp, m, d, n, cen, W, nsteps, trace, ntrace, cap,
                s.A, s.B, s.red, s.adj, s.tw, cs);
}
extern "C" __global__ void __launch_bounds__(512, 1) anneal_chains(CHAINS_ARGS) {
    block_chains(CHAINS_PASS, nullptr, 0);
}
extern "C" __global__ void __launch_bounds__(512, 1) anneal_chains_group(CHAINS_ARGS,
                                                                         const i64* grp) {
    block_chains(CHAINS_PASS, grp, 0);
}
extern "C" __global__ void __launch_bounds__(512, 1) anneal_chains_centres(CHAINS_ARGS,
        const i64* grp, int has_grp, int cen) {
    block_chains(CHAINS_PASS, has_grp ? grp : nullptr, cen);
}

// C speculating chains on a cooperative grid (launched from a cooperative module)
__device__ __forceinline__ void grid_chains(SPEC_ARGS, const i64* grp, int cen) {
    extern __shared__ u64 smem[];
    __shared__ ChainState cs;
    BlockMem s = block_mem(smem, n, W, blockDim.x, m * d, tw_ints(grp, m, d, cen));
    spec_chains(blockIdx.x, gridDim.x, threadIdx.x, blockDim.x, C, adjs, bests, sts, scs, fls,
                params, has_reach ? reach : nullptr, grp, m, d, n, cen, W, nsteps, trace,
                ntrace, cap, ws, cand, cand_st, cand_adj, count, s.A, s.B, s.red, s.adj, s.tw,
                s.dec, cs);
}
extern "C" __global__ void __launch_bounds__(512, 2) anneal_spec(SPEC_ARGS) {
    grid_chains(SPEC_PASS, nullptr, 0);
}
extern "C" __global__ void __launch_bounds__(512, 2) anneal_spec_group(SPEC_ARGS,
                                                                       const i64* grp) {
    grid_chains(SPEC_PASS, grp, 0);
}
extern "C" __global__ void __launch_bounds__(512, 2) anneal_spec_centres(SPEC_ARGS,
        const i64* grp, int has_grp, int cen) {
    grid_chains(SPEC_PASS, has_grp ? grp : nullptr, cen);
}
