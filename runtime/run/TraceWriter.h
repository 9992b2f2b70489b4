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
#include <ostream>
#include <string>
#include <vector>

namespace hetc::run {

/// One executed instruction.
struct TraceEvent {
  uint32_t index;
  uint64_t cycle;
  uint32_t latency;
};

/// Collects the instructions the chip model executes, in order.
class TraceRecorder : public sim::ExecutionObserver {
public:
  void executed(uint32_t index, uint64_t cycle, uint32_t latency) override {
    events.push_back({index, cycle, latency});
  }
  const std::vector<TraceEvent> &recorded() const { return events; }

private:
  std::vector<TraceEvent> events;
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
TraceCounts writeTrace(std::ostream &out, const hetx::Artifact &artifact,
                       const chip::ChipSpec &chip,
                       const std::vector<TraceEvent> &events);

/// Returns `text` as a JSON string literal, quotes included. Bytes that are
/// not valid UTF-8 become U+FFFD.
std::string jsonString(const std::string &text);

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_TRACEWRITER_H
