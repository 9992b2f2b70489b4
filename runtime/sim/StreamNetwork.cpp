//===- StreamNetwork.cpp - Values in flight on the streams -------------===//

#include "runtime/sim/StreamNetwork.h"

#include <iterator>

namespace hetc::sim {

namespace {
/// Cycles a value is remembered after it left the floorplan, so that a read
/// that comes too late can name it.
constexpr int64_t kRetireWindow = 256;
/// Values a failed read looks at, each way, to name the nearest one.
constexpr int kDiagnoseSteps = 4096;
} // namespace

StreamNetwork::StreamNetwork(uint32_t groups, uint32_t groupWidth,
                             uint32_t positions, uint32_t hopCycles,
                             uint32_t lanes)
    : groups(groups), groupWidth(groupWidth), positions(positions),
      hop(hopCycles), lanes(lanes), lines(2 * size_t(groups)), scratch(lanes) {}

uint32_t StreamNetwork::allocSlot() {
  if (!freeSlots.empty()) {
    uint32_t slot = freeSlots.back();
    freeSlots.pop_back();
    return slot;
  }
  uint32_t slot = static_cast<uint32_t>(storage.size() / lanes);
  storage.resize(storage.size() + lanes);
  return slot;
}

float *StreamNetwork::emit(uint8_t dir, uint32_t group, uint32_t position,
                           int64_t cycle, uint32_t producer) {
  uint32_t lineIndex = lineOf(dir, group);
  Line &line = lines[lineIndex];
  uint32_t origin = distance(dir, position);
  Key key{cycle - int64_t(origin) * hop, origin};
  if (line.count(key)) {
    // Two values at one place and cycle: keep the first, report at `cycle`.
    pending.push({cycle, lineIndex, key, key, true, producer});
    return scratch.data();
  }
  uint32_t slot = allocSlot();
  auto it = line.emplace(key, Value{producer, slot, 0}).first;
  if (it != line.begin()) {
    auto before = std::prev(it);
    if (before->first.phase == key.phase)
      pending.push({cycle, lineIndex, before->first, key, false, producer});
  }
  auto after = std::next(it);
  if (after != line.end() && after->first.phase == key.phase)
    pending.push({cycleAt(after->first, after->first.origin), lineIndex, key,
                  after->first, false, after->second.producer});
  return storage.data() + size_t(slot) * lanes;
}

StreamNetwork::Line::iterator StreamNetwork::present(Line &line, int64_t phase,
                                                     uint32_t distance) {
  auto it = line.upper_bound(Key{phase, distance});
  if (it == line.begin())
    return line.end();
  --it;
  return it->first.phase == phase ? it : line.end();
}

const float *StreamNetwork::read(uint8_t dir, uint32_t group, uint32_t position,
                                 int64_t cycle, uint32_t &producer,
                                 MissedRead &missed) {
  Line &line = lines[lineOf(dir, group)];
  uint32_t at = distance(dir, position);
  int64_t phase = cycle - int64_t(at) * hop;
  auto it = present(line, phase, at);
  if (it == line.end()) {
    diagnose(line, phase, at, missed);
    return nullptr;
  }
  ++it->second.reads;
  producer = it->second.producer;
  return storage.data() + size_t(it->second.slot) * lanes;
}

void StreamNetwork::diagnose(Line &line, int64_t phase, uint32_t at,
                             MissedRead &missed) {
  missed = MissedRead();
  // The nearest value that reaches `at` later: the read is too early.
  Line::iterator later = line.end();
  int steps = 0;
  for (auto it = line.lower_bound(Key{phase + 1, 0});
       it != line.end() && steps < kDiagnoseSteps; ++it, ++steps) {
    if (it->first.origin <= at) {
      later = present(line, it->first.phase, at);
      break;
    }
  }
  // The nearest value that passed `at` before: the read is too late.
  Line::iterator earlier = line.end();
  steps = 0;
  for (auto it = line.lower_bound(Key{phase, 0});
       it != line.begin() && steps < kDiagnoseSteps; ++steps) {
    --it;
    if (it->first.origin <= at) {
      earlier = present(line, it->first.phase, at);
      break;
    }
  }
  if (later == line.end() && earlier == line.end())
    return;
  bool early = earlier == line.end() ||
               (later != line.end() &&
                later->first.phase - phase <= phase - earlier->first.phase);
  Line::iterator chosen = early ? later : earlier;
  missed.kind = early ? MissedRead::TooEarly : MissedRead::TooLate;
  missed.producer = chosen->second.producer;
  missed.cycle = cycleAt(chosen->first, at);
}

bool StreamNetwork::checkCollisions(int64_t cycle, Collision &collision) {
  while (!pending.empty() && pending.top().cycle <= cycle) {
    Pending check = pending.top();
    pending.pop();
    Line &line = lines[check.line];
    auto victim = line.find(check.victim);
    if (victim == line.end())
      continue;
    if (!check.exact) {
      // Stale when a value emitted later sits between the two: that one
      // was replaced instead, and has its own check.
      auto next = std::next(victim);
      if (next == line.end() || !(next->first == check.overwriter) ||
          victim->second.reads > 0)
        continue;
    }
    collision.exact = check.exact;
    collision.victim = victim->second.producer;
    collision.overwriter = check.overwriterProducer;
    collision.position = positionOf(check.line, check.overwriter.origin);
    collision.cycle = check.cycle;
    collision.victimPosition = positionOf(check.line, check.victim.origin);
    collision.victimCycle = cycleAt(check.victim, check.victim.origin);
    collision.streamId = (check.line % groups) * groupWidth;
    collision.dir = static_cast<uint8_t>(check.line / groups);
    return false;
  }
  return true;
}

void StreamNetwork::retire(int64_t cycle) {
  int64_t span = int64_t(positions - 1) * hop + kRetireWindow;
  for (Line &line : lines) {
    while (!line.empty() && line.begin()->first.phase + span < cycle) {
      freeSlots.push_back(line.begin()->second.slot);
      line.erase(line.begin());
    }
  }
}

} // namespace hetc::sim
