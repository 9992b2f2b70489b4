//===- HazardText.cpp - Wording of chip-model errors -------------------===//

#include "runtime/sim/HazardText.h"

namespace hetc::sim {

HazardText::HazardText(const hetx::Artifact &artifact,
                       const chip::ChipSpec &chip)
    : artifact(artifact), positionNames(chip.positions(), "switch") {
  for (uint32_t s = 0; s < chip.proto().memory().slices(); ++s)
    positionNames[chip.slicePosition(s)] = "MEM slice " + std::to_string(s);
  for (uint32_t p = 0; p < chip.proto().matrix().planes(); ++p)
    positionNames[chip.planePosition(p)] = "matrix plane " + std::to_string(p);
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
  switch (instr.opcode()) {
  case hetx::MEM_READ:
  case hetx::MEM_WRITE:
    return "MEM slice " + std::to_string(instr.unit());
  case hetx::M_LOAD_WEIGHTS:
  case hetx::M_LOAD_WEIGHTS_COLUMN:
  case hetx::M_MATMUL:
    return "matrix plane " + std::to_string(instr.unit());
  case hetx::V_ADD:
  case hetx::V_SUB:
  case hetx::V_MUL:
  case hetx::V_DIV:
  case hetx::V_MAX:
  case hetx::V_MIN:
  case hetx::V_POW:
  case hetx::V_RELU:
  case hetx::V_SIGMOID:
  case hetx::V_TANH:
  case hetx::V_EXP:
  case hetx::V_NEG:
  case hetx::V_ABS:
  case hetx::V_SQRT:
  case hetx::V_RECIPROCAL:
  case hetx::V_LOG:
  case hetx::V_ERF:
  case hetx::V_FLOOR:
  case hetx::V_CEIL:
  case hetx::V_SIN:
  case hetx::V_COS:
  case hetx::V_REDUCE_SUM:
  case hetx::V_REDUCE_MAX:
  case hetx::V_REDUCE_MIN:
    return "vector unit";
  default:
    return "unit " + std::to_string(instr.unit());
  }
}

std::string HazardText::instruction(uint32_t index) const {
  std::string text = "#" + std::to_string(index);
  if (index < uint32_t(artifact.instructions_size()))
    text += " " + opcodeName(artifact.instructions(int(index)).opcode());
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
  std::string text = "hazard: " + kind + " at cycle " + std::to_string(cycle) +
                     ": instruction " + instruction(index);
  if (index >= uint32_t(artifact.instructions_size()))
    return text + ": " + details;
  const hetx::Instruction &instr = artifact.instructions(int(index));
  text += " on " + unitName(instr);
  if (instr.node() < uint32_t(artifact.nodes_size()))
    text += " (node '" + artifact.nodes(int(instr.node())) + "')";
  else
    text += " (node #" + std::to_string(instr.node()) + ")";
  return text + ": " + details;
}

} // namespace hetc::sim
