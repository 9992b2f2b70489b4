//===- HazardText.cpp - Wording of chip-model errors -------------------===//

#include "runtime/sim/HazardText.h"

#include "runtime/sim/Program.h"

namespace hetc::sim {

HazardText::HazardText(const hetx::Artifact &artifact,
                       const chip::ChipSpec &chip)
    : artifact(artifact), positionNames(chip.positions(), "switch") {
  for (uint32_t s = 0; s < chip.proto().memory().slices(); ++s)
    positionNames[chip.slicePosition(s)] = "MEM slice " + std::to_string(s);
  for (uint32_t p = 0; p < chip.proto().matrix().planes(); ++p)
    positionNames[chip.planePosition(p)] = "matrix plane " + std::to_string(p);
  for (uint32_t k = 0; k < chip.switches(); ++k)
    positionNames[chip.switchPosition(k)] = "switch " + std::to_string(k);
  positionNames[chip.vectorPosition()] = "vector unit";
}

std::string HazardText::opcodeName(int opcode) {
  if (hetx::Opcode_IsValid(opcode) && opcode != hetx::OPCODE_UNSPECIFIED)
    return hetx::Opcode_Name(static_cast<hetx::Opcode>(opcode));
  return "opcode " + std::to_string(opcode);
}

std::string HazardText::streamName(uint32_t id, int dir) {
  std::string direction = dir == hetx::EAST ? "EAST"
                          : dir == hetx::WEST
                              ? "WEST"
                              : "direction " + std::to_string(dir);
  return direction + " stream group " + std::to_string(id);
}

std::string HazardText::unitName(const hetx::Instruction &instr) {
  std::optional<OpClass> kind = opClassOf(instr.opcode());
  if (!kind)
    return "unit " + std::to_string(instr.unit());
  switch (*kind) {
  case OpClass::MemRead:
  case OpClass::MemWrite:
  case OpClass::MemGather:
  case OpClass::MemScatter:
    return "MEM slice " + std::to_string(instr.unit());
  case OpClass::LoadWeights:
  case OpClass::InstallWeights:
  case OpClass::MatMul:
    return "matrix plane " + std::to_string(instr.unit());
  case OpClass::Dma:
    return "DMA engine " + std::to_string(instr.unit());
  case OpClass::Link:
    return "C2C link " + std::to_string(instr.unit());
  case OpClass::Permute:
    return "switch " + std::to_string(instr.unit());
  default:
    return "vector unit";
  }
}

std::string HazardText::instruction(uint32_t index) const {
  uint32_t instr = instructionOf(index);
  std::string text = "#" + std::to_string(instr);
  if (instr >= uint32_t(artifact.instructions_size()))
    return text;
  const hetx::Instruction &in = artifact.instructions(int(instr));
  text += " " + opcodeName(in.opcode());
  if (in.repeat() > 1 && index < issueNumber.size())
    text += " (issue " + std::to_string(issueNumber[index] + 1) + " of " +
            std::to_string(in.repeat()) + ")";
  return text;
}

std::string HazardText::position(uint32_t position) const {
  std::string text = "position " + std::to_string(position);
  if (position < positionNames.size())
    text += " (" + positionNames[position] + ")";
  return text;
}

std::string HazardText::format(const std::string &kind, uint64_t cycle,
                               uint32_t index,
                               const std::string &details) const {
  return describe("hazard: " + kind, cycle, index, details);
}

std::string HazardText::formatDataError(const std::string &kind, uint64_t cycle,
                                        uint32_t index,
                                        const std::string &details) const {
  return describe(kind, cycle, index, details);
}

std::string HazardText::describe(const std::string &what, uint64_t cycle,
                                 uint32_t index,
                                 const std::string &details) const {
  std::string text = what + " at cycle " + std::to_string(cycle) +
                     ": instruction " + instruction(index);
  uint32_t which = instructionOf(index);
  if (which >= uint32_t(artifact.instructions_size()))
    return text + ": " + details;
  const hetx::Instruction &instr = artifact.instructions(int(which));
  text += " on " + unitName(instr);
  if (instr.node() < uint32_t(artifact.nodes_size()))
    text += " (node '" + artifact.nodes(int(instr.node())) + "')";
  else
    text += " (node #" + std::to_string(instr.node()) + ")";
  return text + ": " + details;
}

} // namespace hetc::sim
