//===- StreamNetwork.h - Values in flight on the streams --------*- C++ -*-===//
//
// Models timing rules 1-4 of docs/isa.md. Positions are measured along the
// flow ("distance": the floorplan position for EAST, its mirror for WEST),
// so a value emitted at distance p at cycle e is at distance x >= p at cycle
// e + (x - p) * hop. All values that pass one distance at the same cycle
// share the phase e - p * hop; values are keyed by (direction, group, phase,
// origin), so the value a consumer at distance q reads at cycle t is the
// one with phase t - q * hop whose origin is nearest upstream of q.
//
// A value that a later emission replaces (rule 3) before any consumer read
// it is an overwrite collision, as are two emissions at the same place and
// cycle. These are checked at the cycle of the replacement, once every read
// that could have come before it has been made.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_STREAMNETWORK_H
#define HETC_RUNTIME_SIM_STREAMNETWORK_H

#include "runtime/sim/BufferCache.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

namespace hetc::sim {

/// Why a stream read found no value, and the nearest value there is.
struct MissedRead {
  enum Kind { TooEarly, TooLate, NoValue } kind = NoValue;
  /// The producer of the nearest value and the cycle it is at the reader.
  uint32_t producer = 0;
  int64_t cycle = 0;
};

/// A replacement that broke rule 3: `victim`'s value was replaced before
/// anyone read it, or both emitted at the same place and cycle (`exact`).
struct Collision {
  bool exact = false;
  uint32_t victim = 0;
  uint32_t overwriter = 0;
  /// Floorplan position and cycle of the replacement.
  uint32_t position = 0;
  int64_t cycle = 0;
  /// Where and when the victim's value was emitted.
  uint32_t victimPosition = 0;
  int64_t victimCycle = 0;
  uint32_t streamId = 0;
  uint8_t dir = 0;
};

/// The values on all stream groups of both directions.
class StreamNetwork {
public:
  /// `groups` stream groups of `groupWidth` streams per direction over
  /// `positions` floorplan positions; each value holds `lanes` floats.
  /// Without `values` only the timing is kept: every value shares one
  /// buffer.
  StreamNetwork(uint32_t groups, uint32_t groupWidth, uint32_t positions,
                uint32_t hopCycles, uint32_t lanes, bool values = true);

  /// Puts a value from instruction `producer` on (dir, group) at `position`
  /// at `cycle`. Returns a buffer of `lanes` floats for the caller to fill.
  /// It is never the buffer of a value that has not retired, so the caller
  /// may compute into it from values it read at this cycle, and it stays
  /// the value's own until the value retires (kRetireWindow cycles, at
  /// least, after `cycle`), so the caller may also fill it later, as long
  /// as no read can reach the value first. (In timing-only mode, and for a
  /// value that collides exactly with another, all share one scratch
  /// buffer.)
  ///
  /// With `lend`, the value's data is `lend` itself, not a copy, which must
  /// stay unchanged until the value retires; the buffer returned is then
  /// not the value's.
  float *emit(uint8_t dir, uint32_t group, uint32_t position, int64_t cycle,
              uint32_t producer, const float *lend = nullptr);

  /// Reads the value on (dir, group) at `position` at `cycle` and sets
  /// `producer` to the instruction that emitted it. Returns null and fills
  /// `missed` when there is none. The pointer stays valid, and its values
  /// unchanged, until the value retires.
  const float *read(uint8_t dir, uint32_t group, uint32_t position,
                    int64_t cycle, uint32_t &producer, MissedRead &missed);

  /// Checks the replacements that happen at or before `cycle`; call it
  /// before executing the instructions issued at `cycle`. Returns false and
  /// fills `collision` for the first broken one.
  bool checkCollisions(int64_t cycle, Collision &collision);

  /// Frees values that left the floorplan long before `cycle`.
  void retire(int64_t cycle);

private:
  struct Key {
    int64_t phase;
    uint32_t origin;
  };
  /// A value on a line: where it was emitted, by whom, its data and how
  /// often it was read.
  struct Rec {
    uint32_t origin;
    uint32_t producer;
    uint32_t slot;
    uint32_t reads;
  };
  /// The values of one phase on one line, sorted by origin. Almost always
  /// one, kept inline; more live in `spills`.
  struct Bucket {
    int64_t phase = 0;
    uint32_t count = 0;
    uint32_t spill = 0;
    Rec one{};
  };
  /// The values on one stream group: a ring of buckets indexed by phase
  /// modulo its size, which grows (a power of two) until the live phases
  /// fit. A bucket is live when it holds values of a phase that has not
  /// retired; retirement only moves `floor`, and a retired bucket is
  /// emptied when its place is reused.
  struct Line {
    std::vector<Bucket> ring;
    /// The smallest and largest phases ever added.
    int64_t bottom = INT64_MAX;
    int64_t top = INT64_MIN;
  };
  struct Pending {
    int64_t cycle;
    uint32_t line;
    Key victim;
    Key overwriter;
    bool exact;
    uint32_t overwriterProducer;
    bool operator>(const Pending &other) const {
      return cycle != other.cycle
                 ? cycle > other.cycle
                 : overwriterProducer > other.overwriterProducer;
    }
  };

  uint32_t lineOf(uint8_t dir, uint32_t group) const {
    return dir * groups + group;
  }
  uint32_t distance(uint8_t dir, uint32_t position) const {
    return dir == 0 ? position : positions - 1 - position;
  }
  uint32_t positionOf(uint32_t line, uint32_t distance) const {
    return line < groups ? distance : positions - 1 - distance;
  }
  int64_t cycleAt(const Key &key, uint32_t distance) const {
    return key.phase + int64_t(distance) * hop;
  }
  Rec *recs(Bucket &bucket) {
    return bucket.count <= 1 ? &bucket.one : spills[bucket.spill].data();
  }
  const Rec *recs(const Bucket &bucket) const {
    return bucket.count <= 1 ? &bucket.one : spills[bucket.spill].data();
  }
  /// The live bucket of `phase` on `line`, or null.
  const Bucket *live(const Line &line, int64_t phase) const {
    if (line.ring.empty() || phase < floor)
      return nullptr;
    const Bucket &bucket = line.ring[size_t(phase) & (line.ring.size() - 1)];
    return bucket.count && bucket.phase == phase ? &bucket : nullptr;
  }
  Bucket *live(Line &line, int64_t phase) {
    return const_cast<Bucket *>(
        static_cast<const StreamNetwork *>(this)->live(line, phase));
  }
  /// The bucket for `phase` on `line`, emptied for it if it holds no live
  /// phase; grows the ring when another live phase holds its place.
  Bucket &claim(Line &line, int64_t phase);
  /// emit() when the bucket of the new value holds a live value.
  float *emitSlow(uint32_t lineIndex, Key key, int64_t cycle, uint32_t producer,
                  const float *lend);
  /// Frees the values of `bucket` and empties it.
  void release(Bucket &bucket);
  /// Inserts `rec` at `index` of the bucket's sorted values.
  void insert(Bucket &bucket, uint32_t index, const Rec &rec);
  uint32_t allocSlot() {
    if (!values)
      return 0;
    if (freeSlots.empty())
      return newSlot();
    uint32_t slot = freeSlots.back();
    freeSlots.pop_back();
    return slot;
  }
  uint32_t newSlot();
  /// The slot of a new value: an entry of `lent` for `lend`, else storage
  /// of its own, `retired` (the slot of the retired value it replaces, or
  /// kNoSlot) when that has storage.
  uint32_t takeSlot(const float *lend, uint32_t retired) {
    if (!values)
      return 0;
    bool owned = retired != kNoSlot && !(retired & kLent);
    if (lend) {
      if (owned)
        freeSlots.push_back(retired);
      lent.push_back(lend);
      return kLent | uint32_t(lent.size() - 1);
    }
    return owned ? retired : allocSlot();
  }
  float *slotData(uint32_t slot) const {
    return blocks[slot / blockSlots].get() + size_t(slot % blockSlots) * lanes;
  }
  /// The values of a value in `slot`.
  const float *dataOf(uint32_t slot) const {
    return slot & kLent ? lent[slot & ~kLent] : slotData(slot);
  }
  /// The index in `bucket` of the value nearest upstream of (or at)
  /// `distance`, or bucket.count.
  static uint32_t upstream(const Rec *recs, uint32_t count,
                           uint32_t distance) {
    uint32_t at = count;
    while (at > 0 && recs[at - 1].origin > distance)
      --at;
    return at > 0 ? at - 1 : count;
  }
  /// Fills `missed` with the nearest value before or after `phase`.
  void diagnose(const Line &line, int64_t phase, uint32_t distance,
                MissedRead &missed) const;

  /// Marks a slot that is an index into `lent`.
  static constexpr uint32_t kLent = uint32_t(1) << 31;
  static constexpr uint32_t kNoSlot = ~uint32_t(0);

  uint32_t groups, groupWidth, positions, hop, lanes;
  bool values;
  /// Value slots per block of storage; blocks never move.
  uint32_t blockSlots;
  /// Values of phases below `floor` have retired.
  int64_t floor = INT64_MIN;
  std::vector<Line> lines;
  std::vector<std::vector<Rec>> spills;
  std::vector<uint32_t> freeSpills;
  std::vector<Buffer> blocks;
  uint32_t slots = 0;
  std::vector<uint32_t> freeSlots;
  /// The data of the values emitted with `lend`.
  std::vector<const float *> lent;
  std::vector<float> scratch;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>>
      pending;
};

// The common cases of emit() and read() are inline: they run for nearly
// every instruction.

inline float *StreamNetwork::emit(uint8_t dir, uint32_t group,
                                  uint32_t position, int64_t cycle,
                                  uint32_t producer, const float *lend) {
  uint32_t lineIndex = lineOf(dir, group);
  Line &line = lines[lineIndex];
  uint32_t origin = distance(dir, position);
  Key key{cycle - int64_t(origin) * hop, origin};
  if (!line.ring.empty()) {
    Bucket &bucket = line.ring[size_t(key.phase) & (line.ring.size() - 1)];
    // An empty place, or one whose single value retired: the new value is
    // alone in its phase and replaces nothing.
    if (bucket.count == 0 || (bucket.count == 1 && bucket.phase < floor)) {
      uint32_t slot = takeSlot(lend, bucket.count ? bucket.one.slot : kNoSlot);
      bucket.phase = key.phase;
      bucket.count = 1;
      bucket.one = Rec{origin, producer, slot, 0};
      line.bottom = std::min(line.bottom, key.phase);
      line.top = std::max(line.top, key.phase);
      return values && !lend ? slotData(slot) : scratch.data();
    }
  }
  return emitSlow(lineIndex, key, cycle, producer, lend);
}

inline const float *StreamNetwork::read(uint8_t dir, uint32_t group,
                                        uint32_t position, int64_t cycle,
                                        uint32_t &producer,
                                        MissedRead &missed) {
  Line &line = lines[lineOf(dir, group)];
  uint32_t at = distance(dir, position);
  int64_t phase = cycle - int64_t(at) * hop;
  if (Bucket *bucket = live(line, phase)) {
    Rec *list = recs(*bucket);
    uint32_t found = upstream(list, bucket->count, at);
    if (found != bucket->count) {
      Rec &value = list[found];
      ++value.reads;
      producer = value.producer;
      return values ? dataOf(value.slot) : scratch.data();
    }
  }
  diagnose(line, phase, at, missed);
  return nullptr;
}

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_STREAMNETWORK_H
