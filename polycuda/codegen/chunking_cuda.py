"""The inspector's smaller auxiliary arrays and its static and dynamic chunking (Anantpur &
Govindarajan 2013, Sections 3.5.1-3.5.2) for codegen/inspector_cuda.py: the aux slot of a cell,
the reader's tests when levels start above the pass, the chunk-level kernel and the passes.

Why the levels stay legal (notation of inspector_cuda's docstring; c: the pass):
- Hashing (cell mod aux size): the slot of cell x holds the smallest level-c writer of ANY
  cell of the slot, so w <= every level-c writer of x. For two iterations t1 < t2 at level c
  that touch x, one writing: if t1 writes, w <= t1 < t2 and t2's test (WAW or RAW) moves t2;
  if only t2 writes, w <= t2: w < t2 moves t2 (WAW), w = t2 moves t2 by t1's WAR test. So every
  true conflict still moves the later iteration; a false one (another cell of the slot) moves
  one too: an extra level, never a lost dependence (Table 6: more levels, same results).
- Chunking: the levels no longer all start at the pass. Invariant I: for conflicting t1 < t2,
  level(t1) <= level(t2), strictly once level(t1) < c (final). Chunk start levels grow with t,
  so I holds at the start; a pass moves only level-c iterations to c + 1 and, for a conflicting
  pair at level c, always the later one, so I holds after it; a chunk step adds to every
  non-final level a shift that does not decrease with t (PC_SHIFT), which keeps I. The reader
  must not LOWER an iteration that starts above c + 1 (it skips it: it is after every level-c
  iteration, and meets them at its own level if they move up), and level c - 1 is final when
  pass c starts (pipelining, Algorithm 6, unchanged).
- The passes end when no iteration moved and pc_cur >= pc_top, an upper bound of every level
  (chunk starts, c + 1 after a move, plus the largest shift of a chunk step).
"""

from __future__ import annotations

from dataclasses import dataclass

from polycuda.codegen.c_target import array_elements
from polycuda.ir.scop import Scop
from polycuda.options import Options

# Dynamic chunking (Section 3.5.2) samples the conflicts of a pass with atomicAdd: one
# iteration in SAMPLE counts (the paper samples "some of the conflicts"; it gives no rate).
SAMPLE = 8
# ... and creates more levels when the estimated conflicts of a pass exceed a chunk's
# iterations / CONFLICT_DIVISOR and their average distance is under a chunk (conflicts "nearby":
# static chunking alone then still sees many levels in a chunk). The paper gives no threshold.
CONFLICT_DIVISOR = 8


@dataclass(frozen=True)
class Chunking:
    """aux_fraction and runtime_chunking of Options, for one generated file."""

    divisor: int = 1
    mode: str = "none"

    @property
    def chunked(self) -> bool:
        return self.mode != "none"

    @property
    def dynamic(self) -> bool:
        return self.mode == "dynamic"

    @property
    def chunks(self) -> int:
        """Section 3.5.1: as many chunks as the ratio of the array's size to its aux array's."""
        return self.divisor if self.chunked else 1


def of(options: Options | None) -> Chunking:
    if options is None:
        return Chunking()
    return Chunking(options.aux_fraction, options.runtime_chunking)


def aux_elements(scop: Scop, name: str, ch: Chunking) -> str:
    """C expression of the number of entries of the aux array of `name` (at least 1)."""
    size = array_elements(scop.array(name))
    if ch.divisor == 1:
        return size
    return f"((({size}) + {ch.divisor - 1}) / {ch.divisor} + (({size}) == 0))"


def slot(scop: Scop, name: str, flat: str, ch: Chunking) -> str:
    """The aux entry of cell `flat` (checked in bounds by pc_check first, so >= 0): the cell
    mod the aux size, Section 3.5.1's hash function."""
    if ch.divisor == 1:
        return flat
    return f"({flat}) % {aux_elements(scop, name, ch)}"


def prelude(ch: Chunking) -> str:
    """PC_SHIFT(g, gcur, mode): the level added by a chunk step to the non-final iterations of
    half-chunk g (g = 2 * chunk + second half), gcur the last half-chunk begun. Mode 2, the
    first step: every chunk gets two levels, its second half one above its first (the current
    chunk's second half moves up one; chunk j + d moves d + 1 + half). Mode 1, later steps:
    the half-chunks after gcur move up one (the linear increase). Non-decreasing in g."""
    if not ch.dynamic:
        return ""
    return ("#define PC_SHIFT(g, gc, mode) ((mode) == 1 ? ((g) > (gc) ? 1 : 0) : "
            "(g) / 2 < (gc) / 2 ? 0 : (g) / 2 == (gc) / 2 ? (g) % 2 : "
            "(g) / 2 - (gc) / 2 + 1 + (g) % 2)\n"
            "#define PC_STAT(t, w) if (((t) & " + str(SAMPLE - 1) + ") == 0) { "
            "atomicAdd(&pc_stat[0], 1ULL); atomicAdd(&pc_stat[1], "
            "(unsigned long long)((t) > (w) ? (t) - (w) : (w) - (t))); }\n")


def reader_lines(aux: str, x: str, is_write: bool, ch: Chunking) -> list[str]:
    """The reader's test of one access to aux slot `x` of aux array `aux` when chunked: only
    an iteration still at level c moves itself (the pass's moves are c -> c + 1 only)."""
    stat = " PC_STAT(pc_t, pc_w)" if ch.dynamic else ""
    here = "pc_level[pc_t] == pc_cur"
    if is_write:  # WAW: t is not the smallest writer of the slot
        return [f"{{ const unsigned pc_w = {aux}[{x}];",
                f"  if ((unsigned)pc_t > pc_w && {here}) "
                f"{{ pc_level[pc_t] = pc_cur + 1; *pc_more = 1;{stat} }} }}"]
    return [f"{{ const unsigned pc_w = {aux}[{x}];",
            f"  if (pc_w != PC_NONE && (unsigned)pc_t > pc_w) "  # RAW
            f"{{ if ({here}) {{ pc_level[pc_t] = pc_cur + 1; *pc_more = 1;{stat} }} }}",
            "  else if (pc_w != PC_NONE && (unsigned)pc_t < pc_w) "  # WAR
            f"{{ pc_level[pc_w] = pc_cur + 1; *pc_more = 1;{stat} }} }}"]


# the iterations each kernel of a chunked pass looks at: levels c (and c + 1, moved this pass
# or starting there); the ones above start later and are left alone
ACTIVE = ("  { const int pc_lv = pc_level[pc_t]; "
          "if (pc_lv < pc_cur || pc_lv > pc_cur + 1) return; }")


def chunk_kernel_lines() -> list[str]:
    """Body of pc_chunks<k>(..., pc_level, pc_cur, pc_chunk, pc_gcur, pc_mode): mode 0 puts
    chunk k at level k (Section 3.5.1); modes 1-2 add PC_SHIFT to the non-final levels
    (Section 3.5.2: "completely data parallel, it is executed on the GPU")."""
    return ["  if (pc_mode == 0) { pc_level[pc_t] = (int)(pc_t / pc_chunk); return; }",
            "#ifdef PC_SHIFT",
            "  if (pc_level[pc_t] <= pc_cur) return;  /* final */",
            "  const int pc_g = (int)(2 * (pc_t / pc_chunk) + "
            "(pc_t % pc_chunk >= (pc_chunk + 1) / 2 ? 1 : 0));",
            "  pc_level[pc_t] += PC_SHIFT(pc_g, pc_gcur, pc_mode);",
            "#endif"]


def pass_lines(name: str, k: int, launch: str, aux: str, ch: Chunking, stop: list[str]
               ) -> list[str]:
    """Host lines of the chunked passes (Algorithm 4 with Sections 3.5.1-3.5.2), in place of
    inspector_cuda's loop; `stop`: the fallback's break, if any."""
    halves = 2 * ch.chunks
    chunk_args = "pc_level, pc_cur, pc_chunk"
    lines = [f"      const long long pc_chunk = (pc_n + {ch.chunks - 1}) / {ch.chunks};",
             f"      int pc_top = {ch.chunks - 1};  /* every level is <= pc_top */",
             f"      pc_chunks{k}{launch}, {chunk_args}, 0, 0);"]
    stat = ""
    if ch.dynamic:
        stat = ", pc_stat"
        lines += [f"      int pc_start[{halves}], pc_doubled = 0;",
                  f"      for (int pc_g = 0; pc_g < {halves}; pc_g++) pc_start[pc_g] = pc_g / 2;",
                  "      unsigned long long *pc_stat = NULL, pc_hstat[2];",
                  "      PC_CHECK(cudaMalloc((void **)&pc_stat, 2 * sizeof(unsigned long long)));"]
    lines += ["      for (;; pc_cur++) {  /* one pass per level (Algorithm 4) */",
              "        PC_CHECK(cudaMemset(pc_more, 0, sizeof(int)));"]
    if ch.dynamic:
        lines += ["        PC_CHECK(cudaMemset(pc_stat, 0, 2 * sizeof(unsigned long long)));"]
    lines += [f"        pc_writer{k}{launch}, pc_level, pc_cur{aux});",
              f"        pc_reader{k}{launch}, pc_level, pc_cur{aux}, pc_more{stat});",
              f"        pc_clear{k}{launch}, pc_level, pc_cur{aux});",
              "        PC_CHECK(cudaGetLastError());",
              "        PC_CHECK(cudaMemcpy(&pc_again, pc_more, sizeof(int), "
              "cudaMemcpyDeviceToHost));",
              "        if (pc_again && pc_top < pc_cur + 1) pc_top = pc_cur + 1;"]
    if ch.dynamic:
        lines += _dynamic_lines(name, k, launch, chunk_args, halves)
    lines += ["        if (!pc_again && pc_cur >= pc_top) break;"] + stop + ["      }"]
    if ch.dynamic:
        lines += ["      cudaFree(pc_stat);"]
    return lines


def _dynamic_lines(name: str, k: int, launch: str, chunk_args: str, halves: int
                   ) -> list[str]:
    """After a pass: many sampled conflicts, nearby (average distance under a chunk): a chunk
    step, doubling the levels of every chunk the first time, linear after (Section 3.5.2)."""
    return [
        "        PC_CHECK(cudaMemcpy(pc_hstat, pc_stat, sizeof(pc_hstat), "
        "cudaMemcpyDeviceToHost));",
        "        int pc_gcur = 0;  /* the last half-chunk begun */",
        f"        while (pc_gcur + 1 < {halves} && pc_start[pc_gcur + 1] <= pc_cur) pc_gcur++;",
        f"        if (pc_hstat[0] * {SAMPLE}ULL * {CONFLICT_DIVISOR}ULL > (unsigned long long)"
        "pc_chunk && pc_hstat[1] < pc_hstat[0] * (unsigned long long)pc_chunk",
        f"            && (!pc_doubled || pc_gcur + 1 < {halves})) {{",
        "          const int pc_mode = pc_doubled ? 1 : 2;",
        f"          pc_chunks{k}{launch}, {chunk_args}, pc_gcur, pc_mode);",
        f"          for (int pc_g = 0; pc_g < {halves}; pc_g++) "
        "pc_start[pc_g] += PC_SHIFT(pc_g, pc_gcur, pc_mode);",
        f"          pc_top += PC_SHIFT({halves - 1}, pc_gcur, pc_mode);",
        f"          pc_{name}_chunk_steps[{k}]++;",
        "          pc_doubled = 1;",
        "        }"]
