//===- VectorUnit.cpp - One vector-unit operation, on any lane count ---===//

#include "runtime/sim/VectorUnit.h"

#include "runtime/sim/TypedMath.h"
#include "runtime/sim/VectorMath.h"

namespace hetc::sim {

LaneRoutine laneRoutineOf(const Op &op) {
  bool isFloat = io::isFloat(op.inType);
  switch (op.kind) {
  case OpClass::VectorBinary:
    if (op.outType == io::ElementType::Bool &&
        op.inType != io::ElementType::Bool)
      return isFloat ? LaneRoutine::FloatCompare : LaneRoutine::IntCompare;
    if (isFloat)
      return LaneRoutine::FloatBinary;
    // Bool lanes: logic as integers, everything else a comparison.
    if (op.inType == io::ElementType::Bool && op.opcode != hetx::V_AND &&
        op.opcode != hetx::V_OR && op.opcode != hetx::V_XOR)
      return LaneRoutine::IntCompare;
    return LaneRoutine::IntBinary;
  case OpClass::VectorSelect:
    return LaneRoutine::Select;
  case OpClass::VectorUnary:
    if (op.opcode == hetx::V_CAST)
      return LaneRoutine::Cast;
    return isFloat ? LaneRoutine::FloatUnary : LaneRoutine::IntUnary;
  case OpClass::VectorReduce:
    if (op.opcode == hetx::V_BROADCAST)
      return LaneRoutine::Broadcast;
    return isFloat ? LaneRoutine::FloatReduce : LaneRoutine::IntReduce;
  default:
    return LaneRoutine::None;
  }
}

void computeVector(const Op &op, const float *const *src, float *out,
                   uint32_t active, uint32_t width) {
  LaneRoutine routine = laneRoutineOf(op);
  switch (routine) {
  case LaneRoutine::FloatCompare:
  case LaneRoutine::IntCompare:
    compareLanes(op.opcode, routine == LaneRoutine::FloatCompare, src[0],
                 src[1], out, active, width);
    break;
  case LaneRoutine::FloatBinary:
    vectorBinary(op.opcode, src[0], src[1], out, active, width);
    break;
  case LaneRoutine::IntBinary:
    integerBinary(op.opcode, src[0], src[1], out, active, width);
    break;
  case LaneRoutine::Select:
    selectLanes(src[0], src[1], src[2], out, active, width);
    return;
  case LaneRoutine::Cast:
    castLanes(op.inType, op.outType, src[0], out, active, width, op.overflow,
              op.rounding);
    return;
  case LaneRoutine::FloatUnary:
    vectorUnary(op.opcode, src[0], out, active, width);
    break;
  case LaneRoutine::IntUnary:
    integerUnary(op.opcode, src[0], out, active, width);
    break;
  case LaneRoutine::FloatReduce:
    vectorReduce(op.opcode, src[0], out, active, width);
    roundLanes(op.outType, out, width);
    return;
  case LaneRoutine::IntReduce:
    integerReduce(op.opcode, src[0], out, active, width);
    return;
  case LaneRoutine::Broadcast:
    // The word moves unchanged, whatever the lanes' type.
    std::fill(out, out + width, src[0][op.sourceLane]);
    return;
  case LaneRoutine::None:
    return;
  }
  roundLanes(op.outType, out, active);
}

Op vectorOp(hetx::Opcode opcode, io::ElementType inType,
            io::ElementType outType) {
  Op op;
  op.opcode = opcode;
  op.kind = opClassOf(opcode).value_or(OpClass::VectorBinary);
  op.inType = inType;
  op.outType = outType;
  return op;
}

} // namespace hetc::sim
