//===- Placement.cpp - A plan's buffers in one arena, and index maps ---===//

#include "runtime/plan/Placement.h"

#include <algorithm>
#include <limits>

namespace hetc::plan {

Placement placeBuffers(const Plan &plan, uint64_t alignWords,
                       const PlacementHints &hints) {
  size_t count = plan.buffers.size(), kernels = plan.kernels.size();
  constexpr size_t kNever = std::numeric_limits<size_t>::max();
  Placement p;
  p.offset.assign(count, 0);
  p.placed.assign(count, false);
  p.first.assign(count, kNever);
  p.last.assign(count, kernels);
  for (size_t i = 0; i < count; ++i)
    if (plan.buffers[i].origin == PlanBufferInfo::Origin::Input)
      p.first[i] = 0;
  for (size_t k = 0; k < kernels; ++k) {
    uint32_t root = plan.buffers[plan.kernels[k].result].root;
    p.first[root] = std::min(p.first[root], k);
    for (uint32_t freed : plan.kernels[k].frees)
      p.last[freed] = k;
  }
  for (size_t i = 0; i < hints.livesTo.size() && i < count; ++i)
    if (p.last[i] < kernels)
      p.last[i] = std::max(p.last[i], std::min(hints.livesTo[i], kernels - 1));
  for (size_t i = 0; i < hints.livesFrom.size() && i < count; ++i)
    if (p.first[i] != kNever)
      p.first[i] = std::min(p.first[i], hints.livesFrom[i]);
  std::vector<size_t> roots;
  for (size_t i = 0; i < count; ++i)
    if (plan.buffers[i].root == i && !plan.buffers[i].constant &&
        p.first[i] != kNever &&
        !(i < hints.unplaced.size() && hints.unplaced[i]))
      roots.push_back(i);
  std::stable_sort(roots.begin(), roots.end(), [&](size_t a, size_t b) {
    return plan.buffers[a].elements > plan.buffers[b].elements;
  });
  auto align = [&](uint64_t words) {
    return (words + alignWords - 1) / alignWords * alignWords;
  };
  std::vector<size_t> done;
  for (size_t root : roots) {
    uint64_t words = align(std::max<uint64_t>(plan.buffers[root].elements, 1));
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t other : done)
      if (p.first[other] <= p.last[root] && p.first[root] <= p.last[other])
        taken.emplace_back(
            p.offset[other],
            p.offset[other] +
                align(std::max<uint64_t>(plan.buffers[other].elements, 1)));
    std::sort(taken.begin(), taken.end());
    uint64_t at = 0;
    for (const auto &[from, to] : taken) {
      if (at + words <= from)
        break;
      at = std::max(at, to);
    }
    p.offset[root] = at;
    p.placed[root] = true;
    p.words = std::max(p.words, at + words);
    done.push_back(root);
  }
  // Views share their root's place and life.
  for (size_t i = 0; i < count; ++i) {
    uint32_t root = plan.buffers[i].root;
    p.offset[i] = p.offset[root];
    p.placed[i] = p.placed[root];
    p.first[i] = p.first[root];
    p.last[i] = p.last[root];
  }
  return p;
}

IndexMap collapse(const IndexMap &map) {
  IndexMap out;
  size_t operands = map.strides.size();
  out.strides.resize(operands);
  for (size_t d = 0; d < map.shape.size(); ++d) {
    if (map.shape[d] == 1)
      continue;
    // The outer dimension so far and this one are walked as one when each
    // operand's outer stride is its inner stride times this size.
    bool together = !out.shape.empty();
    for (size_t o = 0; o < operands && together; ++o)
      together = out.strides[o].back() == map.strides[o][d] * map.shape[d];
    if (together) {
      out.shape.back() *= map.shape[d];
      for (size_t o = 0; o < operands; ++o)
        out.strides[o].back() = map.strides[o][d];
      continue;
    }
    out.shape.push_back(map.shape[d]);
    for (size_t o = 0; o < operands; ++o)
      out.strides[o].push_back(map.strides[o][d]);
  }
  return out;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &operand,
                                      const std::vector<int64_t> &result) {
  std::vector<int64_t> strides(result.size(), 0);
  size_t offset = result.size() - operand.size();
  int64_t stride = 1;
  for (size_t d = operand.size(); d-- > 0;) {
    if (operand[d] != 1)
      strides[offset + d] = stride;
    stride *= operand[d];
  }
  return strides;
}

} // namespace hetc::plan
