//===- SramPlacer.h - Offline placement of buffers in SRAM ------*- C++ -*-===//
//
// The placement problem of memory planning, free of MLIR: buffers with a
// size and a live range, placed at addresses in one linear SRAM so that no
// two buffers live at the same time overlap.
//
// The placer is "greedy by size": buffers are placed largest first, each
// in a free gap among the buffers already placed that are live at the same
// time. Large buffers thus get contiguous room before small ones can split
// it. Packing takes the smallest gap that fits (best fit) at its lowest
// address, so small buffers fill the holes the large ones leave and
// buffers live for the whole program (inputs, constants) lie contiguously.
//
// Among the positions that fit, it prefers those whose MEM slices hold none
// of a buffer's partners (the buffers one kernel's instructions read or
// write together with it: two vectors read in one cycle from one slice
// compete for its banks). With Preference::Spread it then prefers, for a
// `near` buffer, the slices closest to the vector unit (every trip of a
// small intermediate between SRAM and the vector unit takes a hop a
// slice), and otherwise the slice after the last one placed; the caller
// falls back to Preference::Pack when spreading leaves a buffer without
// room, then to Preference::PackFirstFit.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_SRAMPLACER_H
#define HETC_COMPILER_PASSES_SRAMPLACER_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace hetc::placement {

/// One buffer to place. Sizes and addresses are in the placer's unit (the
/// chip's vectors); `first` and `last` are the first and last program
/// points at which the buffer is live, inclusive.
struct Buffer {
  int64_t size = 0;
  int64_t first = 0;
  int64_t last = 0;
  /// Indices of the buffers one kernel uses together with this one.
  std::vector<size_t> partners;
  /// Whether the buffer would rather lie in a slice close to the vector
  /// unit (Geometry::distance): a small intermediate, whose every use is a
  /// trip over the streams that its distance lengthens.
  bool near = false;
  /// The address the buffer must take: one that another program sharing
  /// this SRAM layout gave it (a decode step's weights and KV caches, seen
  /// from its prefill programs). Fixed buffers are placed first, where
  /// they say, whatever else is fixed there; every other buffer keeps
  /// clear of them while they are live.
  std::optional<int64_t> fixed;
};

/// The SRAM: `capacity` units in runs of `sliceSize` units, each run in
/// one slice. Without `slices`, each slice is one run; with it, the runs
/// go to the `slices` slices round-robin (a chip whose addresses are
/// interleaved over its slices).
struct Geometry {
  int64_t capacity = 0;
  int64_t sliceSize = 1;
  /// Per slice, its distance from the vector unit in stream hops; empty
  /// when the placer need not weigh distances.
  std::vector<int64_t> distance;
  int64_t slices = 0;
  /// The slices addresses go round-robin to (each run its own when not
  /// interleaved).
  int64_t sliceCount() const {
    return slices > 0 ? slices : std::max<int64_t>(capacity / sliceSize, 1);
  }
  int64_t sliceOf(int64_t address) const {
    return (address / sliceSize) % sliceCount();
  }
  bool interleaved() const { return sliceCount() * sliceSize < capacity; }
};

/// The most units live at one program point, and the first point at which
/// that many are live.
struct Peak {
  int64_t size = 0;
  int64_t at = 0;
};
Peak peakLive(const std::vector<Buffer> &buffers);

/// How the placer chooses among the positions that fit.
enum class Preference {
  /// Slices clear of the buffer's partners first, then the smallest gap,
  /// then the lowest address: the tightest packing that keeps a kernel's
  /// operands apart where it can.
  Pack,
  /// As Pack, but the lowest address that fits wins whatever its gap's size
  /// (first fit): best fit can strand a buffer that first fit places, and
  /// the other way round (the unit tests hold a case of each).
  PackFirstFit,
  /// Slices clear of the buffer's partners first, then (for a `near`
  /// buffer) the slice closest to the vector unit, then the slice after
  /// the previously placed buffer's (round-robin), then the smallest gap:
  /// spreads accesses over slices and banks while room is plentiful, but
  /// can fragment SRAM when it is not.
  Spread,
};

/// Places `buffers` in `sram`; returns one address per buffer, or nothing
/// when some buffer finds no gap or a fixed one lies outside `sram`.
std::optional<std::vector<int64_t>> place(const std::vector<Buffer> &buffers,
                                          Geometry sram, Preference preference);

/// Fixes `buffers` (all live throughout: a program's inputs and constants)
/// packed at the two ends of `sram`, each the next from one end, largest
/// first, the side taken that keeps the free run between them centred on
/// the slice nearest the vector unit (Geometry::distance; the middle of
/// SRAM without distances). What they leave is one run around the vector
/// unit, where small intermediates like to lie, for the buffers placed
/// after them and for the programs that share this one's SRAM. A buffer
/// that would share a slice with a partner on both sides stays free.
void packAtEnds(std::vector<Buffer> &buffers, const Geometry &sram);

} // namespace hetc::placement

#endif // HETC_COMPILER_PASSES_SRAMPLACER_H
