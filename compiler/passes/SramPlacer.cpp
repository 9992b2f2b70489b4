//===- SramPlacer.cpp - Offline placement of buffers in SRAM ----------===//

#include "compiler/passes/SramPlacer.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <utility>

using namespace hetc::placement;

Peak hetc::placement::peakLive(const std::vector<Buffer> &buffers) {
  // +size at `first`, -size after `last`; ends sort before starts at the
  // same point, as a buffer dead after point p frees its room for p + 1.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * buffers.size());
  for (const Buffer &b : buffers) {
    events.push_back({b.first, b.size});
    events.push_back({b.last + 1, -b.size});
  }
  std::sort(events.begin(), events.end());
  Peak peak;
  int64_t live = 0;
  for (auto [point, delta] : events) {
    live += delta;
    if (live > peak.size)
      peak = {live, point};
  }
  return peak;
}

namespace {

/// A near buffer goes round-robin to the slices fewer than this many hops
/// from the vector unit (tsp-v1: 42 to 45), not to the nearest alone: a
/// depthwise convolution lowered per channel (EfficientNet-B0's, 1,152
/// channels) wrote each channel's 26-vector windows into the one nearest
/// slice and installed them from it, bound by that slice's two banks.
/// Measured on the model suite against 4 (slices 41 to 46): EfficientNet-B0
/// 329,179 cycles against 317,084, the GPT-2-style decode steps 9,616
/// against 9,794 (one slot), 10,455 against 10,648 (four) and 14,033
/// against 14,354 (hidden 1024, fp16); 3 keeps the decode steps within
/// 1.3% of the nearest slice alone.
constexpr int64_t kNearBand = 3;

struct Range {
  int64_t begin;
  int64_t end;
};

bool liveTogether(const Buffer &a, const Buffer &b) {
  return a.first <= b.last && b.first <= a.last;
}

/// The slices some ranges' runs (Geometry) take, counted round the slices,
/// so that whether another run meets them is a lookup, not a walk over the
/// ranges.
class SliceMask {
public:
  SliceMask(const std::vector<Range> &ranges, const Geometry &sram)
      : sram(sram), slices(sram.sliceCount()) {
    std::vector<uint8_t> taken(size_t(slices), 0);
    for (const Range &r : ranges) {
      int64_t first = r.begin / sram.sliceSize;
      int64_t runs = std::min((r.end - 1) / sram.sliceSize - first + 1, slices);
      for (int64_t k = 0; k < runs; ++k)
        taken[size_t((first + k) % slices)] = 1;
    }
    // before[s]: taken slices below s.
    before.assign(size_t(slices) + 1, 0);
    for (int64_t s = 0; s < slices; ++s)
      before[size_t(s) + 1] = before[size_t(s)] + taken[size_t(s)];
  }

  /// True when [begin, begin + size) shares a slice with the ranges.
  bool meets(int64_t begin, int64_t size) const {
    if (before.back() == 0)
      return false;
    int64_t first = begin / sram.sliceSize;
    int64_t runs = (begin + size - 1) / sram.sliceSize - first + 1;
    if (runs >= slices)
      return true;
    int64_t from = first % slices, to = from + runs;
    if (to <= slices)
      return before[size_t(to)] > before[size_t(from)];
    return before[size_t(slices)] > before[size_t(from)] ||
           before[size_t(to - slices)] > 0;
  }

private:
  const Geometry &sram;
  int64_t slices;
  std::vector<int64_t> before;
};

} // namespace

std::optional<std::vector<int64_t>>
hetc::placement::place(const std::vector<Buffer> &buffers, Geometry sram,
                       Preference preference) {
  bool spread = preference == Preference::Spread;
  int64_t slices = std::max<int64_t>(sram.capacity / sram.sliceSize, 1);
  int64_t nextSlice = 0;
  // Past this many runs of a gap, its slices come round again.
  int64_t boundaries = sram.sliceCount() + 1;
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(-buffers[a].size, buffers[a].first) <
           std::make_pair(-buffers[b].size, buffers[b].first);
  });

  std::vector<int64_t> address(buffers.size(), -1);
  std::vector<size_t> placed;
  placed.reserve(buffers.size());
  for (size_t index = 0; index < buffers.size(); ++index) {
    const Buffer &b = buffers[index];
    if (!b.fixed)
      continue;
    if (*b.fixed < 0 || b.size > sram.capacity ||
        *b.fixed > sram.capacity - b.size)
      return std::nullopt;
    address[index] = *b.fixed;
    placed.push_back(index);
  }
  std::vector<Range> taken, partnerRanges;
  for (size_t index : order) {
    const Buffer &b = buffers[index];
    if (b.fixed)
      continue;
    if (b.size > sram.capacity)
      return std::nullopt;
    taken.clear();
    for (size_t other : placed)
      if (liveTogether(b, buffers[other]))
        taken.push_back({address[other], address[other] + buffers[other].size});
    std::sort(taken.begin(), taken.end(), [](const Range &x, const Range &y) {
      return x.begin < y.begin;
    });
    partnerRanges.clear();
    for (size_t p : b.partners)
        if (address[p] >= 0)
          partnerRanges.push_back({address[p], address[p] + buffers[p].size});
    SliceMask partnerSlices(partnerRanges, sram);

    // Score, smallest wins: (shares a partner's slice, then for spreading
    // the distance from the vector unit of a near buffer and the slices
    // after the last placed, gap size, address).
    using Score = std::tuple<bool, int64_t, int64_t, int64_t, int64_t>;
    Score best{true, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    bool near = spread && b.near && !sram.distance.empty();
    int64_t bestAddress = -1;
    auto consider = [&](int64_t begin, int64_t gapSize) {
      bool conflict = partnerSlices.meets(begin, b.size);
      int64_t distance =
          spread ? (begin / sram.sliceSize - nextSlice + slices) % slices : 0;
      // A near buffer is as far as its farthest slice.
      int64_t hops = 0;
      if (near)
        for (int64_t s = begin / sram.sliceSize, k = 0;
             s <= (begin + b.size - 1) / sram.sliceSize && k < boundaries;
             ++s, ++k)
          hops = std::max(hops,
                          sram.distance[size_t(s % sram.sliceCount())] /
                              kNearBand);
      bool firstFit = preference == Preference::PackFirstFit;
      Score score{conflict, hops, distance, firstFit ? 0 : gapSize, begin};
      if (score < best) {
        best = score;
        bestAddress = begin;
      }
    };
    auto visitGap = [&](int64_t lo, int64_t hi) {
      if (hi - lo < b.size)
        return;
      consider(lo, hi - lo);
      if (!spread && partnerRanges.empty())
        return;
      // Other positions in the gap that may clear a partner's slice or
      // continue the round-robin: the gap's end, and the slice boundaries
      // in between.
      consider(hi - b.size, hi - lo);
      int64_t k = 0;
      for (int64_t s = (lo / sram.sliceSize + 1) * sram.sliceSize;
           s + b.size <= hi && k < boundaries; s += sram.sliceSize, ++k)
        consider(s, hi - lo);
    };
    int64_t cursor = 0;
    for (const Range &r : taken) {
      if (r.begin > cursor)
        visitGap(cursor, r.begin);
      cursor = std::max(cursor, r.end);
    }
    visitGap(cursor, sram.capacity);
    if (bestAddress < 0)
      return std::nullopt;
    address[index] = bestAddress;
    placed.push_back(index);
    nextSlice = (bestAddress / sram.sliceSize + 1) % slices;
  }
  return address;
}

void hetc::placement::packAtEnds(std::vector<Buffer> &buffers,
                                 const Geometry &sram) {
  int64_t slices = std::max<int64_t>(sram.capacity / sram.sliceSize, 1);
  int64_t centre = sram.capacity / 2;
  // Interleaved over the slices, no run of addresses lies nearer the
  // vector unit than another: the middle.
  if (!sram.distance.empty() && !sram.interleaved()) {
    auto nearest = std::min_element(sram.distance.begin(), sram.distance.end());
    // The boundary after the nearest slice when its eastern neighbour is
    // as near (the vector unit sits between them), else its middle.
    int64_t s = nearest - sram.distance.begin();
    bool between = s + 1 < slices && sram.distance[size_t(s + 1)] == *nearest;
    centre = between ? (s + 1) * sram.sliceSize
                     : s * sram.sliceSize + sram.sliceSize / 2;
  }
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].size > buffers[b].size;
  });
  std::vector<Range> placed(buffers.size(), Range{-1, -1});
  int64_t west = 0, east = sram.capacity;
  for (size_t index : order) {
    Buffer &b = buffers[index];
    if (b.fixed || b.size > east - west)
      continue;
    std::vector<Range> partners;
    for (size_t p : b.partners)
      if (placed[p].begin >= 0)
        partners.push_back(placed[p]);
    SliceMask partnerSlices(partners, sram);
    bool westClear = !partnerSlices.meets(west, b.size);
    bool eastClear = !partnerSlices.meets(east - b.size, b.size);
    // The free run's middle after each choice, against the centre.
    int64_t offWest = std::abs((west + b.size + east) / 2 - centre);
    int64_t offEast = std::abs((west + east - b.size) / 2 - centre);
    bool takeWest = westClear && (!eastClear || offWest <= offEast);
    if (!westClear && !eastClear)
      continue;
    int64_t begin = takeWest ? west : east - b.size;
    if (takeWest)
      west += b.size;
    else
      east -= b.size;
    b.fixed = begin;
    placed[index] = {begin, begin + b.size};
  }
}
