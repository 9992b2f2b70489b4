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
/// Floats per block of value storage (256 KiB).
constexpr uint32_t kBlockFloats = uint32_t(1) << 16;
} // namespace

StreamNetwork::StreamNetwork(uint32_t groups, uint32_t groupWidth,
                             uint32_t positions, uint32_t hopCycles,
                             uint32_t lanes, bool values)
    : groups(groups), groupWidth(groupWidth), positions(positions),
      hop(hopCycles), lanes(lanes), values(values),
      blockSlots(std::max<uint32_t>(1, kBlockFloats / lanes)),
      lines(2 * size_t(groups)), scratch(lanes) {}

void StreamNetwork::release(Bucket &bucket) {
  if (values) {
    const Rec *list = recs(bucket);
    for (uint32_t i = 0; i < bucket.count; ++i)
      if (!(list[i].slot & kLent))
        freeSlots.push_back(list[i].slot);
  }
  if (bucket.count > 1) {
    spills[bucket.spill].clear();
    freeSpills.push_back(bucket.spill);
  }
  bucket.count = 0;
}

StreamNetwork::Bucket &StreamNetwork::claim(Line &line, int64_t phase) {
  line.bottom = std::min(line.bottom, phase);
  line.top = std::max(line.top, phase);
  for (;;) {
    if (!line.ring.empty()) {
      Bucket &bucket = line.ring[size_t(phase) & (line.ring.size() - 1)];
      if (bucket.count == 0 || bucket.phase == phase)
        return bucket.phase = phase, bucket;
      if (bucket.phase < floor) {
        release(bucket);
        bucket.phase = phase;
        return bucket;
      }
    }
    // Another live phase holds the place: double the ring and move the
    // live buckets over, freeing the retired ones.
    std::vector<Bucket> old = std::move(line.ring);
    size_t size = old.empty() ? 64 : old.size() * 2;
    for (bool fits = false; !fits; size *= 2) {
      fits = true;
      std::vector<uint8_t> taken(size, 0);
      for (const Bucket &bucket : old) {
        if (!bucket.count || bucket.phase < floor)
          continue;
        uint8_t &place = taken[size_t(bucket.phase) & (size - 1)];
        fits = fits && !place;
        place = 1;
      }
      if (fits) {
        line.ring.assign(size, Bucket());
        break;
      }
    }
    for (Bucket &bucket : old) {
      if (!bucket.count)
        continue;
      if (bucket.phase < floor)
        release(bucket);
      else
        line.ring[size_t(bucket.phase) & (line.ring.size() - 1)] = bucket;
    }
  }
}

void StreamNetwork::insert(Bucket &bucket, uint32_t index, const Rec &rec) {
  if (bucket.count == 0) {
    bucket.one = rec;
  } else {
    if (bucket.count == 1) {
      if (freeSpills.empty()) {
        bucket.spill = uint32_t(spills.size());
        spills.emplace_back();
      } else {
        bucket.spill = freeSpills.back();
        freeSpills.pop_back();
      }
      spills[bucket.spill].push_back(bucket.one);
    }
    std::vector<Rec> &list = spills[bucket.spill];
    list.insert(list.begin() + index, rec);
  }
  ++bucket.count;
}

uint32_t StreamNetwork::newSlot() {
  if (slots % blockSlots == 0)
    blocks.push_back(makeBuffer(size_t(blockSlots) * lanes));
  return slots++;
}

float *StreamNetwork::emitSlow(uint32_t lineIndex, Key key, int64_t cycle,
                               uint32_t producer, const float *lend) {
  Line &line = lines[lineIndex];
  uint32_t origin = key.origin;
  Bucket &bucket = claim(line, key.phase);
  const Rec *list = recs(bucket);
  // The place of the new value: after every value from upstream of it.
  uint32_t at = bucket.count;
  while (at > 0 && list[at - 1].origin > origin)
    --at;
  if (at > 0 && list[at - 1].origin == origin) {
    // Two values at one place and cycle: keep the first, report at `cycle`.
    pending.push({cycle, lineIndex, key, key, true, producer});
    return scratch.data();
  }
  uint32_t slot = takeSlot(lend, kNoSlot);
  insert(bucket, at, Rec{origin, producer, slot, 0});
  list = recs(bucket);
  if (at > 0)
    pending.push({cycle, lineIndex, Key{key.phase, list[at - 1].origin}, key,
                  false, producer});
  if (at + 1 < bucket.count) {
    const Rec &after = list[at + 1];
    Key afterKey{key.phase, after.origin};
    pending.push({cycleAt(afterKey, after.origin), lineIndex, key, afterKey,
                  false, after.producer});
  }
  return values && !lend ? slotData(slot) : scratch.data();
}

void StreamNetwork::diagnose(const Line &line, int64_t phase, uint32_t at,
                             MissedRead &missed) const {
  // Visits the live values in (phase, origin) order from `phase` on, each
  // way, as far as kDiagnoseSteps values.
  missed = MissedRead();
  // The nearest value that reaches `at` later: the read is too early.
  const Bucket *later = nullptr;
  int steps = 0;
  for (int64_t p = phase + 1; p <= line.top && steps < kDiagnoseSteps && !later;
       ++p) {
    const Bucket *bucket = live(line, p);
    if (!bucket)
      continue;
    const Rec *list = recs(*bucket);
    for (uint32_t i = 0; i < bucket->count && steps < kDiagnoseSteps;
         ++i, ++steps) {
      if (list[i].origin <= at) {
        later = bucket;
        break;
      }
    }
  }
  // The nearest value that passed `at` before: the read is too late.
  const Bucket *earlier = nullptr;
  steps = 0;
  for (int64_t p = std::min(phase - 1, line.top);
       p >= std::max(floor, line.bottom) && steps < kDiagnoseSteps && !earlier;
       --p) {
    const Bucket *bucket = live(line, p);
    if (!bucket)
      continue;
    const Rec *list = recs(*bucket);
    for (uint32_t i = bucket->count; i > 0 && steps < kDiagnoseSteps;
         ++steps) {
      --i;
      if (list[i].origin <= at) {
        earlier = bucket;
        break;
      }
    }
  }
  if (!later && !earlier)
    return;
  bool early = !earlier || (later && later->phase - phase <=
                                         phase - earlier->phase);
  const Bucket &chosen = *(early ? later : earlier);
  const Rec *list = recs(chosen);
  const Rec &value = list[upstream(list, chosen.count, at)];
  missed.kind = early ? MissedRead::TooEarly : MissedRead::TooLate;
  missed.producer = value.producer;
  missed.cycle = cycleAt(Key{chosen.phase, value.origin}, at);
}

bool StreamNetwork::checkCollisions(int64_t cycle, Collision &collision) {
  while (!pending.empty() && pending.top().cycle <= cycle) {
    Pending check = pending.top();
    pending.pop();
    const Bucket *bucket = live(lines[check.line], check.victim.phase);
    if (!bucket)
      continue;
    const Rec *list = recs(*bucket);
    uint32_t victim = 0;
    while (victim < bucket->count && list[victim].origin != check.victim.origin)
      ++victim;
    if (victim == bucket->count)
      continue;
    const Rec &entry = list[victim];
    if (!check.exact) {
      // Stale when a value emitted later sits between the two: that one
      // was replaced instead, and has its own check.
      uint32_t next = victim + 1;
      if (next == bucket->count ||
          list[next].origin != check.overwriter.origin || entry.reads > 0)
        continue;
    }
    collision.exact = check.exact;
    collision.victim = entry.producer;
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
  // Values whose phase + span is before `cycle` retire; their buckets are
  // emptied when the ring needs their places.
  int64_t span = int64_t(positions - 1) * hop + kRetireWindow;
  floor = std::max(floor, cycle - span);
}

} // namespace hetc::sim
