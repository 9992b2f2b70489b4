//===- HIsaOps.cpp - hisa verifiers -----------------------------------===//

#include "compiler/dialects/hisa/IR/HIsa.h"

using namespace mlir;
using namespace hetc::hisa;

#define GET_OP_CLASSES
#include "compiler/dialects/hisa/IR/HIsaOps.cpp.inc"

namespace {
LogicalResult verifyAddress(Operation *op, int64_t address) {
  if (address < 0)
    return op->emitOpError("address must be >= 0, got ") << address;
  return success();
}
LogicalResult verifyLanes(Operation *op, int32_t lanes) {
  if (lanes < 1)
    return op->emitOpError("lanes must be >= 1, got ") << lanes;
  return success();
}
LogicalResult verifyPlane(Operation *op, int32_t plane) {
  if (plane < 0)
    return op->emitOpError("plane must be >= 0, got ") << plane;
  return success();
}

/// A DMA instruction: addresses >= 0 and an engine index >= 0.
LogicalResult verifyDma(Operation *op, int64_t address, int64_t host,
                        int32_t engine) {
  if (failed(verifyAddress(op, address)))
    return failure();
  if (host < 0)
    return op->emitOpError("host address must be >= 0, got ") << host;
  if (engine < 0)
    return op->emitOpError("engine must be >= 0, got ") << engine;
  return success();
}

/// A binding: a non-negative SRAM address and host address.
LogicalResult verifyBinding(Operation *op, int64_t address,
                            std::optional<int64_t> host) {
  if (failed(verifyAddress(op, address)))
    return failure();
  if (host && *host < 0)
    return op->emitOpError("host address must be >= 0, got ") << *host;
  return success();
}
} // namespace

LogicalResult InputOp::verify() {
  return verifyBinding(*this, getAddress(), getHost());
}
LogicalResult OutputOp::verify() {
  return verifyBinding(*this, getAddress(), getHost());
}
LogicalResult C2CSendOp::verify() {
  if (int32_t(getLink()) < 0)
    return emitOpError("link must be >= 0, got ") << int32_t(getLink());
  return success();
}
LogicalResult C2CRecvOp::verify() {
  if (int32_t(getLink()) < 0)
    return emitOpError("link must be >= 0, got ") << int32_t(getLink());
  return success();
}
LogicalResult DmaInOp::verify() {
  return verifyDma(*this, getAddress(), getHost(), getEngine());
}
LogicalResult DmaOutOp::verify() {
  return verifyDma(*this, getAddress(), getHost(), getEngine());
}

LogicalResult ReadOp::verify() { return verifyAddress(*this, getAddress()); }
LogicalResult WriteOp::verify() { return verifyAddress(*this, getAddress()); }
LogicalResult VBinaryOp::verify() { return verifyLanes(*this, getLanes()); }
LogicalResult VUnaryOp::verify() { return verifyLanes(*this, getLanes()); }
LogicalResult VReduceOp::verify() { return verifyLanes(*this, getLanes()); }
LogicalResult MatMulOp::verify() { return verifyPlane(*this, getPlane()); }

LogicalResult LoadWeightsOp::verify() {
  // I32Attr getters are unsigned; read the index as written.
  int32_t index = int32_t(getIndex());
  if (index < 0)
    return emitOpError() << stringifyWeightSlot(getSlot())
                         << " must be >= 0, got " << index;
  return verifyPlane(*this, getPlane());
}

LogicalResult PermuteOp::verify() {
  int32_t unit = int32_t(getSwitchUnit());
  if (unit < 0)
    return emitOpError("switch must be >= 0, got ") << unit;
  ArrayRef<int32_t> map = getMap();
  if (map.empty())
    return emitOpError("map must have at least one lane");
  for (auto [j, from] : llvm::enumerate(map))
    if (from < -1)
      return emitOpError("map[")
             << j << "] is " << from
             << "; entries are source lanes (>= 0) or -1 (keep)";
  return success();
}
