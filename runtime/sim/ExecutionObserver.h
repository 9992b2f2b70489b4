//===- ExecutionObserver.h - Told of each executed instruction -*- C++ -*-===//
//
// The chip model calls an observer once per instruction that passed all its
// checks, so that tools such as the trace writer can follow a run without
// the timing code knowing about them.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_EXECUTIONOBSERVER_H
#define HETC_RUNTIME_SIM_EXECUTIONOBSERVER_H

#include <cstdint>

namespace hetc::sim {

/// Receives the instructions the chip model executes, in execution order:
/// by cycle, and within a cycle memory writes first.
class ExecutionObserver {
public:
  virtual ~ExecutionObserver() = default;

  /// Instruction `index` of the artifact issued at `cycle` and passed every
  /// check; its effect is complete at `cycle + latency`.
  virtual void executed(uint32_t index, uint64_t cycle, uint32_t latency) = 0;
};

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_EXECUTIONOBSERVER_H
