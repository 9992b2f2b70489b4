//===- TestPrograms.h - Hand-built chip programs for runtime tests -*- C++ -*-//
//
// A builder for small .hetx programs and the two reference programs the
// chip-model tests start from: read -> V_ADD -> write, and a weight install
// followed by read -> M_MATMUL -> write. Their cycles are derived from the
// chip's figures, so they stay correct on variants of test-chip with other
// latencies.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_TEST_UNIT_RUNTIME_TESTPROGRAMS_H
#define HETC_TEST_UNIT_RUNTIME_TESTPROGRAMS_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/Tensor.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace hetc::test {

/// Path of a file in the source tree ($HETC_SOURCE_DIR, else the working
/// directory).
std::string sourcePath(const std::string &relative);

/// Loads chips/<name>.chip; fails the current test if it does not load.
chip::ChipSpec loadChip(const std::string &name);

/// test-chip with `edit` applied to its description.
chip::ChipSpec testChipWith(const std::function<void(chip::Chip &)> &edit);

/// A stream group operand.
struct Stream {
  uint32_t id;
  hetx::Direction dir;
};
inline Stream east(uint32_t id) { return {id, hetx::EAST}; }
inline Stream west(uint32_t id) { return {id, hetx::WEST}; }

/// The latency docs/isa.md gives `opcode` on `chip`.
uint32_t latencyOf(const chip::ChipSpec &chip, hetx::Opcode opcode);

/// Builds a program instruction by instruction.
class ProgramBuilder {
public:
  explicit ProgramBuilder(const chip::ChipSpec &chip);
  /// Continues `base`, e.g. to add instructions to a reference program.
  ProgramBuilder(const chip::ChipSpec &chip, hetx::Artifact base);

  /// Names the ONNX node of the instructions added next.
  void setNode(const std::string &name);

  hetx::Instruction &read(uint64_t cycle, uint64_t address, Stream dst);
  hetx::Instruction &write(uint64_t cycle, uint64_t address, Stream src);
  hetx::Instruction &vector(uint64_t cycle, hetx::Opcode opcode,
                            std::vector<Stream> src, Stream dst);
  hetx::Instruction &loadWeights(uint64_t cycle, uint32_t plane, uint32_t row,
                                 Stream src);
  hetx::Instruction &matmul(uint64_t cycle, uint32_t plane, Stream src,
                            Stream dst);
  /// S_PERMUTE on switch `unit`; lanes = map.size(); `src` holds one or two
  /// streams.
  hetx::Instruction &permute(uint64_t cycle, uint32_t unit,
                             std::vector<Stream> src, Stream dst,
                             const std::vector<uint32_t> &map);

  /// MEM_GATHER on `slice` of rows [begin, end) of a table of `rows` rows
  /// of `stride` vectors from `address`, by lane `lane` of `src`. Its
  /// `chain` is left 0: set it once the program is sorted.
  hetx::Instruction &gather(uint64_t cycle, uint32_t slice, uint64_t address,
                            uint64_t stride, uint64_t rows, uint64_t begin,
                            uint64_t end, uint32_t lane, Stream src,
                            Stream dst);

  /// MEM_SCATTER on `slice` of rows [begin, end) of a table of `rows` rows
  /// of `stride` vectors from `address`, by lane `lane` of `index`,
  /// storing `value`. Its `chain` is left 0, as for gather().
  hetx::Instruction &scatter(uint64_t cycle, uint32_t slice, uint64_t address,
                             uint64_t stride, uint64_t rows, uint64_t begin,
                             uint64_t end, uint32_t lane, Stream index,
                             Stream value);

  /// Adds a binding with one vector per row at `address`.
  void input(const std::string &name, std::vector<int64_t> shape,
             uint64_t address);
  void output(const std::string &name, std::vector<int64_t> shape,
              uint64_t address);
  void constant(const std::string &name, std::vector<int64_t> shape,
                uint64_t address, const std::vector<float> &values);

  /// The artifact, instructions sorted by cycle, with predicted_cycles set
  /// to max(cycle + latency).
  hetx::Artifact build() const;

private:
  hetx::Instruction &add(uint64_t cycle, hetx::Opcode opcode, uint32_t unit);
  /// A MEM_GATHER or MEM_SCATTER with its table fields, without streams.
  hetx::Instruction &indexed(uint64_t cycle, hetx::Opcode opcode,
                             uint32_t slice, uint64_t address, uint64_t stride,
                             uint64_t rows, uint64_t begin, uint64_t end,
                             uint32_t lane);

  const chip::ChipSpec &chip;
  hetx::Artifact artifact;
  uint32_t node = 0;
};

/// A program with the inputs to run it on.
struct TestProgram {
  hetx::Artifact artifact;
  std::map<std::string, io::Tensor> inputs;
};

/// y = a + b for a, b of `lanes` elements: a read from slice 0 flowing east,
/// b from slice 4 flowing west, the sum written to slice 5.
TestProgram addProgram(const chip::ChipSpec &chip);

/// y = x * W with W a lanes x lanes constant in slice 1 installed row by row
/// on plane 0, x read from slice 2 and y written to slice 3.
TestProgram matmulProgram(const chip::ChipSpec &chip);

/// y = a merge of lanes of a and b on switch 0: b (slice 1) is permuted
/// first, lanes 0-7 taking b[15 - j] and the rest kept as zero; then a
/// (slice 0) is merged into that result with lanes 8-13 taking a[j - 8],
/// lanes 0-7 kept and lanes 14-15 zero (lanes = 14). Both reads flow west
/// to the switch; the result flows east to slice 2. Needs 16 lanes.
TestProgram permuteProgram(const chip::ChipSpec &chip);

/// Stably re-sorts the instructions by cycle and recomputes
/// predicted_cycles.
void resort(hetx::Artifact &artifact, const chip::ChipSpec &chip);

/// Index of the first instruction with `opcode` issued at `cycle`, or -1.
int findInstruction(const hetx::Artifact &artifact, hetx::Opcode opcode,
                    uint64_t cycle);

/// Index of the first instruction with `opcode`, or -1.
int firstWith(const hetx::Artifact &artifact, hetx::Opcode opcode);

/// Simulates `program`, which must run (the test fails otherwise).
sim::SimResult simulateOk(const TestProgram &program,
                          const chip::ChipSpec &chip);

/// Simulates `program`; returns the error, or "" on success. Also runs it
/// timing-only and expects the same outcome for any program whose inputs
/// are right.
std::string simulateError(const TestProgram &program,
                          const chip::ChipSpec &chip);

/// Appends a buffer of `dtype` and `shape` to a kernel plan; its origin
/// (input, constant, scratch, view) is the caller's to set.
hetx::PlanBuffer *addPlanBuffer(hetx::KernelPlan &plan, hetx::DataType dtype,
                                std::vector<int64_t> shape);

/// Appends a kernel to a kernel plan, its node named "node<index>".
hetx::PlanKernel *addPlanKernel(hetx::KernelPlan &plan,
                                hetx::PlanKernelKind kind,
                                std::vector<uint32_t> operands, uint32_t result,
                                hetx::Opcode opcode = hetx::OPCODE_UNSPECIFIED);

} // namespace hetc::test

#endif // HETC_TEST_UNIT_RUNTIME_TESTPROGRAMS_H
