//===- HetxTypes.cpp - hisa kinds and types as the artifact names them ===//

#include "compiler/codegen/HetxTypes.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace hetc;

hetx::Opcode codegen::binaryOpcode(hisa::VBinaryKind kind) {
  switch (kind) {
  case hisa::VBinaryKind::add:
    return hetx::V_ADD;
  case hisa::VBinaryKind::sub:
    return hetx::V_SUB;
  case hisa::VBinaryKind::mul:
    return hetx::V_MUL;
  case hisa::VBinaryKind::div:
    return hetx::V_DIV;
  case hisa::VBinaryKind::max:
    return hetx::V_MAX;
  case hisa::VBinaryKind::min:
    return hetx::V_MIN;
  case hisa::VBinaryKind::pow:
    return hetx::V_POW;
  case hisa::VBinaryKind::and_:
    return hetx::V_AND;
  case hisa::VBinaryKind::or_:
    return hetx::V_OR;
  case hisa::VBinaryKind::xor_:
    return hetx::V_XOR;
  case hisa::VBinaryKind::mod:
    return hetx::V_MOD;
  case hisa::VBinaryKind::fmod:
    return hetx::V_FMOD;
  case hisa::VBinaryKind::shl:
    return hetx::V_SHL;
  case hisa::VBinaryKind::shr:
    return hetx::V_SHR;
  }
  llvm_unreachable("unknown vector binary kind");
}

hetx::Opcode codegen::unaryOpcode(hisa::VUnaryKind kind) {
  switch (kind) {
  case hisa::VUnaryKind::relu:
    return hetx::V_RELU;
  case hisa::VUnaryKind::sigmoid:
    return hetx::V_SIGMOID;
  case hisa::VUnaryKind::tanh:
    return hetx::V_TANH;
  case hisa::VUnaryKind::exp:
    return hetx::V_EXP;
  case hisa::VUnaryKind::neg:
    return hetx::V_NEG;
  case hisa::VUnaryKind::abs:
    return hetx::V_ABS;
  case hisa::VUnaryKind::sqrt:
    return hetx::V_SQRT;
  case hisa::VUnaryKind::reciprocal:
    return hetx::V_RECIPROCAL;
  case hisa::VUnaryKind::log:
    return hetx::V_LOG;
  case hisa::VUnaryKind::erf:
    return hetx::V_ERF;
  case hisa::VUnaryKind::floor:
    return hetx::V_FLOOR;
  case hisa::VUnaryKind::ceil:
    return hetx::V_CEIL;
  case hisa::VUnaryKind::sin:
    return hetx::V_SIN;
  case hisa::VUnaryKind::cos:
    return hetx::V_COS;
  case hisa::VUnaryKind::round:
    return hetx::V_ROUND;
  case hisa::VUnaryKind::not_:
    return hetx::V_NOT;
  }
  llvm_unreachable("unknown vector unary kind");
}

hetx::Opcode codegen::compareOpcode(hisa::VCompareKind kind) {
  switch (kind) {
  case hisa::VCompareKind::eq:
    return hetx::V_EQUAL;
  case hisa::VCompareKind::lt:
    return hetx::V_LESS;
  case hisa::VCompareKind::le:
    return hetx::V_LESS_EQUAL;
  }
  llvm_unreachable("unknown vector comparison");
}

hetx::Opcode codegen::reduceOpcode(hisa::VReduceKind kind) {
  switch (kind) {
  case hisa::VReduceKind::sum:
    return hetx::V_REDUCE_SUM;
  case hisa::VReduceKind::max:
    return hetx::V_REDUCE_MAX;
  case hisa::VReduceKind::min:
    return hetx::V_REDUCE_MIN;
  }
  llvm_unreachable("unknown vector reduction");
}

std::optional<hetx::DataType> codegen::dataTypeOf(Type type, bool binding) {
  if (type.isF64())
    return binding ? hetx::F64 : hetx::F32;
  if (type.isSignlessInteger(64))
    return binding ? hetx::I64 : hetx::I32;
  if (type.isSignlessInteger(16))
    return binding ? hetx::I16 : hetx::I32;
  if (type.isUnsignedInteger(16))
    return binding ? hetx::U16 : hetx::I32;
  if (type.isUnsignedInteger(32))
    return binding ? hetx::U32 : hetx::I32;
  if (type.isUnsignedInteger(64))
    return binding ? hetx::U64 : hetx::I32;
  if (type.isF32())
    return hetx::F32;
  if (type.isF16())
    return hetx::F16;
  if (type.isBF16())
    return hetx::BF16;
  if (type.isSignlessInteger(8))
    return hetx::I8;
  if (type.isUnsignedInteger(8))
    return hetx::U8;
  if (type.isSignlessInteger(32))
    return hetx::I32;
  if (type.isSignlessInteger(1))
    return hetx::BOOL;
  if (isa<Float8E4M3FNType>(type))
    return hetx::F8E4M3FN;
  if (isa<Float8E4M3FNUZType>(type))
    return hetx::F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(type))
    return hetx::F8E5M2;
  if (isa<Float8E5M2FNUZType>(type))
    return hetx::F8E5M2FNUZ;
  if (isa<Float8E8M0FNUType>(type))
    return hetx::F8E8M0;
  if (isa<Float4E2M1FNType>(type))
    return hetx::F4E2M1;
  if (type.isSignlessInteger(4))
    return hetx::I4;
  if (type.isUnsignedInteger(4))
    return hetx::U4;
  if (type.isSignlessInteger(2))
    return hetx::I2;
  if (type.isUnsignedInteger(2))
    return hetx::U2;
  return std::nullopt;
}
