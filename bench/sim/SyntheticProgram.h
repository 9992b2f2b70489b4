//===- SyntheticProgram.h - Large valid programs for the chip model -*- C++
//-*-//
//
// Builds a correct hisa program of any length for any chip whose floorplan
// has MEM slices on both sides of the vector unit and a matrix plane at
// each end, so that the chip model's speed can be measured on millions of
// instructions. Each iteration, one cycle after the last, adds two vectors
// read from either side of the vector unit and writes the sum, multiplies an
// int8 vector on the western plane (int8 at the full matrix rate: one
// product a cycle) and writes the int32 product, and installs a weight row
// on the eastern plane: nine instructions that keep every kind of unit busy
// every cycle, after a prologue of two that gives the western plane int8
// weights.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_BENCH_SIM_SYNTHETICPROGRAM_H
#define HETC_BENCH_SIM_SYNTHETICPROGRAM_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"

#include <cstdint>
#include <map>
#include <string>

namespace hetc::bench {

/// Instructions per iteration of the synthetic program.
constexpr uint64_t kSyntheticStride = 9;

/// Fills `artifact` with about `instructions` instructions (the prologue and
/// a whole number of iterations, at least 64) for `chip` and `inputs` with
/// values for its inputs. Returns false with `error` when the floorplan lacks
/// the units.
bool buildSyntheticProgram(const chip::ChipSpec &chip, uint64_t instructions,
                           hetx::Artifact &artifact,
                           std::map<std::string, io::Tensor> &inputs,
                           std::string &error);

} // namespace hetc::bench

#endif // HETC_BENCH_SIM_SYNTHETICPROGRAM_H
