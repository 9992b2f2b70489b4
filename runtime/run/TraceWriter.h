//===- TraceWriter.h - Chrome trace-event JSON of a chip-model run -*- C++ -*-//
//
// `hetc run --trace` records each instruction the chip model executes and
// writes the run as Chrome trace-event JSON, which chrome://tracing and
// Perfetto open: one complete event per instruction on the track of its
// functional unit, timed at the chip clock. docs/observability.md describes
// the format.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_TRACEWRITER_H
#define HETC_RUNTIME_RUN_TRACEWRITER_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/ExecutionObserver.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace hetc::run {

/// One executed instruction: its index in program `program` of those the
/// trace is written for (0: the first, the decode step of a generation).
struct TraceEvent {
  uint32_t index;
  uint64_t cycle;
  uint32_t latency;
  uint32_t program = 0;
};

/// Collects the instructions the chip model executes, in order. Runs one
/// after another (the steps of a generation) are recorded on one timeline:
/// each run's cycles count from `offset`. Past `limit` instructions the
/// rest are not kept (`dropped()` counts them).
class TraceRecorder : public sim::ExecutionObserver {
public:
  void executed(uint32_t index, uint64_t cycle, uint32_t latency) override {
    if (events.size() < limit)
      events.push_back({index, offset + cycle, latency, program});
    else
      ++droppedEvents;
  }
  const std::vector<TraceEvent> &recorded() const { return events; }
  void setOffset(uint64_t cycles) { offset = cycles; }
  /// The program the next instructions belong to (TraceEvent::program).
  void setProgram(uint32_t index) { program = index; }
  void setLimit(size_t count) { limit = count; }
  size_t dropped() const { return droppedEvents; }

private:
  std::vector<TraceEvent> events;
  uint64_t offset = 0;
  uint32_t program = 0;
  size_t limit = std::numeric_limits<size_t>::max();
  size_t droppedEvents = 0;
};

/// A span of the run on a track of its own above the units' (a step of a
/// generation): its name, first cycle and length, and the JSON members of
/// its args ("\"step\":3,..."; may be empty).
struct TraceSpan {
  std::string name;
  uint64_t cycle;
  uint64_t cycles;
  std::string args;
};

/// What a written trace holds.
struct TraceCounts {
  size_t events = 0;
  size_t tracks = 0;
};

/// Writes `events` (instructions of `artifact`, run on `chip`) to `out` as
/// {"traceEvents": [...], "displayTimeUnit": "ns"}. Each functional unit
/// gets a track; instructions that overlap in time on one unit (a pipelined
/// unit issues before its last result is out) go on further tracks of that
/// unit, since trace viewers need the events on one track to nest.
/// `spans`, when given, go on a track named `spanTrack`, first.
/// `programs` holds the programs the events' indices are of, by
/// TraceEvent::program: a generation's decode step and its prefills.
TraceCounts writeTrace(std::ostream &out,
                       const std::vector<const hetx::Artifact *> &programs,
                       const chip::ChipSpec &chip,
                       const std::vector<TraceEvent> &events,
                       const std::vector<TraceSpan> &spans = {},
                       const std::string &spanTrack = "");
/// As above, for the events of one program.
inline TraceCounts writeTrace(std::ostream &out, const hetx::Artifact &artifact,
                              const chip::ChipSpec &chip,
                              const std::vector<TraceEvent> &events,
                              const std::vector<TraceSpan> &spans = {},
                              const std::string &spanTrack = "") {
  return writeTrace(out, std::vector<const hetx::Artifact *>{&artifact}, chip,
                    events, spans, spanTrack);
}

/// Returns `text` as a JSON string literal, quotes included. Bytes that are
/// not valid UTF-8 become U+FFFD.
std::string jsonString(const std::string &text);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_TRACEWRITER_H
