//===- SharedLayout.h - Programs that share one SRAM layout -----*- C++ -*-===//
//
// A decoder's prefill programs run on the chip between its decode steps, on
// the same SRAM: the weights lie where the decode step placed them, once,
// and the KV caches stay where the step keeps them, written in place by
// either program. Once the step is placed, residentLayout() says what it
// keeps in SRAM from run to run; setSharedLayout() puts that on the module
// of a prefill program before it is placed, and hetc-htile-plan-memory then
// gives the prefill's inputs of those names and its constants of the same
// contents the step's addresses, and keeps its other buffers clear of all
// the step keeps.
//
// The module attribute `hetc.shared_layout` holds it:
//   {kept = array<i64: address, vectors, ...>,
//    constants = array<i64: fingerprint, address, ...>,
//    inputs = {NAME = [address : i64, memref type], ...}[, slot = b]}
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_SHAREDLAYOUT_H
#define HETC_COMPILER_PASSES_SHAREDLAYOUT_H

#include "compiler/dialects/hetc/IR/HetcTarget.h"
#include "compiler/dialects/htile/IR/HTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hetc::placement {

/// What a placed program keeps in SRAM from run to run.
struct ResidentLayout {
  struct Region {
    int64_t address = 0, vectors = 0;
  };
  /// Every region it keeps: its constants and its resident inputs.
  std::vector<Region> kept;
  /// Its constants: fingerprintConstant() and address.
  std::vector<std::pair<uint64_t, int64_t>> constants;
  /// Its resident inputs (those that an output of the same buffer updates
  /// in place: a KV cache), with their addresses and buffer types.
  struct Input {
    std::string name;
    int64_t address = 0;
    /// The buffer type, printed: programs are compiled in contexts of
    /// their own.
    std::string type;
  };
  std::vector<Input> inputs;
  /// For a program of one batch slot sharing the layout of one of several
  /// (a prefill of one sequence for a decode step of B slots): the slot
  /// whose rows of each resident input (batch its first dimension) its
  /// input of that name, with a first dimension of 1, takes.
  std::optional<int64_t> slot;
};

/// A fingerprint of a constant's type and contents (FNV-1a 64): equal for
/// two constants of one type holding the same elements.
uint64_t fingerprintConstant(htile::ConstantOp constant);

/// What `func`, placed by hetc-htile-plan-memory for a chip of `lanes`
/// lanes, keeps from run to run.
ResidentLayout residentLayout(mlir::func::FuncOp func, uint32_t lanes);

/// Sets `module`'s shared layout to `layout`.
void setSharedLayout(mlir::ModuleOp module, const ResidentLayout &layout);

/// `module`'s shared layout, none when it has none; an error on the module
/// when the attribute is malformed.
mlir::FailureOr<std::optional<ResidentLayout>>
getSharedLayout(mlir::ModuleOp module);

} // namespace hetc::placement

#endif // HETC_COMPILER_PASSES_SHAREDLAYOUT_H
