//===- NodeName.h - The ONNX node a location names -------------*- C++ -*-===//
//
// The importer gives every op the name of the ONNX node it came from as a
// NameLoc; fusing ops fuses their locations. The artifact, the kernel plan,
// the compile summary and the diagnostics report that name.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_DIALECTS_HETC_IR_NODENAME_H
#define HETC_DIALECTS_HETC_IR_NODENAME_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <string>

namespace hetc {

/// The ONNX node name a location carries (the first one of a fused
/// location), or "" if none.
inline std::string nodeNameOf(mlir::Location loc) {
  if (auto name = mlir::dyn_cast<mlir::NameLoc>(loc))
    return name.getName().str();
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations())
      if (std::string name = nodeNameOf(inner); !name.empty())
        return name;
  return "";
}

} // namespace hetc

#endif // HETC_DIALECTS_HETC_IR_NODENAME_H
