//===- VectorUnit.cpp - One vector-unit operation, on any lane count ---===//

#include "runtime/sim/VectorUnit.h"

#include "runtime/sim/TypedMath.h"
#include "runtime/sim/VectorMath.h"

namespace hetc::sim {

void computeVector(const Op &op, const float *const *src, float *out,
                   uint32_t active, uint32_t width) {
  switch (op.kind) {
  case OpClass::VectorBinary:
    if (op.outType == io::ElementType::Bool &&
        op.inType != io::ElementType::Bool)
      compareLanes(op.opcode, io::isFloat(op.inType), src[0], src[1], out,
                   active, width);
    else if (io::isFloat(op.inType))
      vectorBinary(op.opcode, src[0], src[1], out, active, width);
    else if (op.inType == io::ElementType::Bool && op.opcode != hetx::V_AND &&
             op.opcode != hetx::V_OR && op.opcode != hetx::V_XOR)
      compareLanes(op.opcode, false, src[0], src[1], out, active, width);
    else
      integerBinary(op.opcode, src[0], src[1], out, active, width);
    roundLanes(op.outType, out, active);
    return;
  case OpClass::VectorSelect:
    selectLanes(src[0], src[1], src[2], out, active, width);
    return;
  case OpClass::VectorUnary:
    if (op.opcode == hetx::V_CAST) {
      castLanes(op.inType, op.outType, src[0], out, active, width, op.overflow,
                op.rounding);
      return;
    }
    if (io::isFloat(op.inType))
      vectorUnary(op.opcode, src[0], out, active, width);
    else
      integerUnary(op.opcode, src[0], out, active, width);
    roundLanes(op.outType, out, active);
    return;
  case OpClass::VectorReduce:
    if (io::isFloat(op.inType)) {
      vectorReduce(op.opcode, src[0], out, active, width);
      roundLanes(op.outType, out, width);
    } else {
      integerReduce(op.opcode, src[0], out, active, width);
    }
    return;
  default:
    return;
  }
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
