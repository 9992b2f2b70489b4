//===- HazardText.h - Wording of chip-model errors --------------*- C++ -*-===//
//
// Every rule the chip model enforces is reported in one format that names
// the instruction, its unit, its cycle and the ONNX node it implements.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_SIM_HAZARDTEXT_H
#define HETC_RUNTIME_SIM_HAZARDTEXT_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/schema/hetx.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::sim {

/// Formats hazard messages for one artifact on one chip.
class HazardText {
public:
  HazardText(const hetx::Artifact &artifact, const chip::ChipSpec &chip);

  /// Returns "hazard: <kind> at cycle <cycle>: instruction #<index> <OPCODE>
  /// on <unit> (node '<name>'): <details>".
  std::string format(const std::string &kind, uint64_t cycle, uint32_t index,
                     const std::string &details) const;

  /// As format(), for a program that is well timed but stops on its data
  /// (an index out of range): "error: <kind> at cycle ...".
  std::string formatDataError(const std::string &kind, uint64_t cycle,
                              uint32_t index,
                              const std::string &details) const;

  /// Returns "#<index> <OPCODE>", naming another instruction in details;
  /// for an issue of a train, "#<index> <OPCODE> (issue <k> of <n>)".
  std::string instruction(uint32_t index) const;

  /// Sets what the indices the chip model passes mean once its trains are
  /// expanded: per issue, the artifact instruction and which of its issues
  /// (from 0) it is. Until then, and with empty lists, an index is an
  /// artifact instruction's.
  void setIssues(std::vector<uint32_t> instructionOf,
                 std::vector<uint32_t> issueOf) {
    issueInstruction = std::move(instructionOf);
    issueNumber = std::move(issueOf);
  }

  /// Names the unit at a floorplan position, e.g. "position 6 (vector
  /// unit)".
  std::string position(uint32_t position) const;

  /// Returns the opcode's name, or "opcode <n>" for an unknown one.
  static std::string opcodeName(int opcode);

  /// Returns "EAST stream group 4" for the group whose first stream is 4.
  static std::string streamName(uint32_t id, int dir);

  /// Names the unit an instruction runs on: "MEM slice 3", "vector unit",
  /// "matrix plane 1", or "unit <n>" for an unknown opcode.
  static std::string unitName(const hetx::Instruction &instr);

private:
  /// "<what> at cycle <cycle>: instruction ... (node ...): <details>".
  std::string describe(const std::string &what, uint64_t cycle,
                       uint32_t index, const std::string &details) const;

  /// The artifact instruction of a chip-model index, and the issue of it.
  uint32_t instructionOf(uint32_t index) const {
    return index < issueInstruction.size() ? issueInstruction[index] : index;
  }

  const hetx::Artifact &artifact;
  std::vector<std::string> positionNames;
  std::vector<uint32_t> issueInstruction, issueNumber;
};

} // namespace hetc::sim

#endif // HETC_RUNTIME_SIM_HAZARDTEXT_H
