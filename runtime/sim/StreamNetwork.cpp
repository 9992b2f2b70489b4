//===- StreamNetwork.cpp - Values in flight on the streams -------------===//

#include "runtime/sim/StreamNetwork.h"

#include <algorithm>
#include <climits>

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
                             uint32_t lanes, bool values)
    : groups(groups), groupWidth(groupWidth), positions(positions),
      hop(hopCycles), lanes(lanes), values(values), lines(2 * size_t(groups)),
      storage(values ? 0 : lanes), scratch(lanes) {}

size_t StreamNetwork::Line::upperBound(const Key &key) const {
  // New keys mostly land at or near the end.
  size_t at = entries.size();
  for (int steps = 0; steps < 4 && at > head; ++steps) {
    if (!(key < entries[at - 1].key))
      return at;
    --at;
  }
  return size_t(
      std::upper_bound(entries.begin() + head, entries.begin() + at, key,
                       [](const Key &k, const Entry &e) { return k < e.key; }) -
      entries.begin());
}

size_t StreamNetwork::Line::find(const Key &key) const {
  size_t at = upperBound(key);
  return at > head && entries[at - 1].key == key ? at - 1 : end();
}

uint32_t StreamNetwork::allocSlot() {
  if (!values)
    return 0;
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
  size_t at = line.upperBound(key);
  if (at > line.head && line.entries[at - 1].key == key) {
    // Two values at one place and cycle: keep the first, report at `cycle`.
    pending.push({cycle, lineIndex, key, key, true, producer});
    return scratch.data();
  }
  uint32_t slot = allocSlot();
  line.entries.insert(line.entries.begin() + at,
                      Entry{key, Value{producer, slot, 0}});
  if (at > line.head) {
    const Key &before = line.entries[at - 1].key;
    if (before.phase == key.phase)
      pending.push({cycle, lineIndex, before, key, false, producer});
  }
  if (at + 1 < line.end()) {
    const Entry &after = line.entries[at + 1];
    if (after.key.phase == key.phase)
      pending.push({cycleAt(after.key, after.key.origin), lineIndex, key,
                    after.key, false, after.value.producer});
  }
  return storage.data() + size_t(slot) * lanes;
}

size_t StreamNetwork::present(const Line &line, int64_t phase,
                              uint32_t distance) const {
  size_t at = line.upperBound(Key{phase, distance});
  if (at == line.head)
    return line.end();
  --at;
  return line.entries[at].key.phase == phase ? at : line.end();
}

const float *StreamNetwork::read(uint8_t dir, uint32_t group, uint32_t position,
                                 int64_t cycle, uint32_t &producer,
                                 MissedRead &missed) {
  Line &line = lines[lineOf(dir, group)];
  uint32_t at = distance(dir, position);
  int64_t phase = cycle - int64_t(at) * hop;
  size_t found = present(line, phase, at);
  if (found == line.end()) {
    diagnose(line, phase, at, missed);
    return nullptr;
  }
  Value &value = line.entries[found].value;
  ++value.reads;
  producer = value.producer;
  return storage.data() + size_t(value.slot) * lanes;
}

void StreamNetwork::diagnose(const Line &line, int64_t phase, uint32_t at,
                             MissedRead &missed) const {
  missed = MissedRead();
  size_t none = line.end();
  // The nearest value that reaches `at` later: the read is too early.
  size_t later = none;
  int steps = 0;
  for (size_t i = line.upperBound(Key{phase, UINT32_MAX});
       i < line.end() && steps < kDiagnoseSteps; ++i, ++steps) {
    if (line.entries[i].key.origin <= at) {
      later = present(line, line.entries[i].key.phase, at);
      break;
    }
  }
  // The nearest value that passed `at` before: the read is too late.
  size_t earlier = none;
  steps = 0;
  for (size_t i = line.upperBound(Key{phase - 1, UINT32_MAX});
       i > line.head && steps < kDiagnoseSteps; ++steps) {
    --i;
    if (line.entries[i].key.origin <= at) {
      earlier = present(line, line.entries[i].key.phase, at);
      break;
    }
  }
  if (later == none && earlier == none)
    return;
  bool early = earlier == none ||
               (later != none && line.entries[later].key.phase - phase <=
                                     phase - line.entries[earlier].key.phase);
  const Entry &chosen = line.entries[early ? later : earlier];
  missed.kind = early ? MissedRead::TooEarly : MissedRead::TooLate;
  missed.producer = chosen.value.producer;
  missed.cycle = cycleAt(chosen.key, at);
}

bool StreamNetwork::checkCollisions(int64_t cycle, Collision &collision) {
  while (!pending.empty() && pending.top().cycle <= cycle) {
    Pending check = pending.top();
    pending.pop();
    const Line &line = lines[check.line];
    size_t victim = line.find(check.victim);
    if (victim == line.end())
      continue;
    const Entry &entry = line.entries[victim];
    if (!check.exact) {
      // Stale when a value emitted later sits between the two: that one
      // was replaced instead, and has its own check.
      size_t next = victim + 1;
      if (next == line.end() || !(line.entries[next].key == check.overwriter) ||
          entry.value.reads > 0)
        continue;
    }
    collision.exact = check.exact;
    collision.victim = entry.value.producer;
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
    while (line.head < line.end() &&
           line.entries[line.head].key.phase + span < cycle) {
      if (values)
        freeSlots.push_back(line.entries[line.head].value.slot);
      ++line.head;
    }
    // Drop the retired prefix once it is most of the array.
    if (line.head > 64 && line.head * 2 > line.end()) {
      line.entries.erase(line.entries.begin(),
                         line.entries.begin() + ptrdiff_t(line.head));
      line.head = 0;
    }
  }
}

} // namespace hetc::sim
