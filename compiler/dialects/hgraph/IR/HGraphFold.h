//===- HGraphFold.h - Host evaluation of hgraph ops on constants -*- C++ -*-===//
//
// Folders evaluate ops whose operands are constants on the host, so that
// shape subgraphs and other constant computations vanish before lowering.
// Values are held as doubles (float element types) or int64 (integer and
// boolean ones); f32 arithmetic done in double and rounded once gives the
// f32 result for + - * / and sqrt.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_DIALECTS_HGRAPH_IR_HGRAPHFOLD_H
#define HETC_DIALECTS_HGRAPH_IR_HGRAPHFOLD_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <functional>
#include <optional>
#include <string>

namespace hetc::hgraph {

/// Largest result (in elements) that folders compute on the host.
constexpr int64_t kMaxFoldElements = int64_t(1) << 22;

/// Largest constant operand (in elements, unless a splat) that folders
/// read into host values.
constexpr int64_t kMaxFoldOperandElements = int64_t(1) << 24;

/// The element count of `shape` when every dimension lies in [0, limit] and
/// the count is at most `limit`, computed without overflow (a shape from a
/// hostile file may multiply past 2^63 to a small number); else nullopt.
/// The importer's size checks and the folders share it.
std::optional<int64_t> boundedElementCount(llvm::ArrayRef<int64_t> shape,
                                           int64_t limit);

/// Whether a folder may compute a result of `type` on the host: a static
/// shape of at most `limit` elements (boundedElementCount).
bool foldable(mlir::ShapedType type, int64_t limit = kMaxFoldElements);

/// A constant tensor's values on the host.
struct HostTensor {
  mlir::ShapedType type;
  bool isFloat = false;
  bool splat = false;
  llvm::SmallVector<double> f;
  llvm::SmallVector<int64_t> i;

  /// Reads a dense constant of a float, integer or boolean element type.
  static std::optional<HostTensor> read(mlir::Attribute attr);
  /// An empty tensor of `type` with room for every element.
  static HostTensor alloc(mlir::ShapedType type);

  double getF(int64_t k) const {
    k = splat ? 0 : k;
    return isFloat ? f[k] : double(i[k]);
  }
  int64_t getI(int64_t k) const {
    k = splat ? 0 : k;
    return isFloat ? int64_t(f[k]) : i[k];
  }
  /// Copies element `from` of `src` (of the same kind) into element `to`.
  void copyFrom(const HostTensor &src, int64_t from, int64_t to) {
    if (isFloat)
      f[to] = src.getF(from);
    else
      i[to] = src.getI(from);
  }
  /// The elements attribute for `type`, converting to its element type.
  mlir::DenseElementsAttr toAttr() const;
};

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);
/// Calls `fn(coord, flatIndex)` for every coordinate of `shape` in order.
void forEachCoord(llvm::ArrayRef<int64_t> shape,
                  llvm::function_ref<void(llvm::ArrayRef<int64_t>, int64_t)> fn);
/// Flat index into `shape` of `coord` (of the broadcast rank) under
/// right-aligned broadcasting: size-1 dimensions repeat.
int64_t broadcastIndex(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> coord);

/// Folds an elementwise op: evaluates `floatFn` when the last operand has a
/// float element type, `intFn` otherwise (either may be null: no fold), with
/// broadcasting, and converts to `resultType`.
mlir::OpFoldResult
foldElementwise(llvm::ArrayRef<mlir::Attribute> operands,
                mlir::ShapedType resultType,
                std::function<double(llvm::ArrayRef<double>)> floatFn,
                std::function<int64_t(llvm::ArrayRef<int64_t>)> intFn);

/// Folds a data-movement op: result element `k` is input element
/// `source(coord of k)`.
mlir::OpFoldResult
foldGather(mlir::Attribute input, mlir::ShapedType resultType,
           llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> source);

/// "[a, b, c]" for diagnostics.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// Checks that `result` is the numpy broadcast of `lhs` and `rhs`; emits
/// an error on `op` otherwise.
mlir::LogicalResult verifyBroadcastShape(mlir::Operation *op,
                                         llvm::ArrayRef<int64_t> lhs,
                                         llvm::ArrayRef<int64_t> rhs,
                                         llvm::ArrayRef<int64_t> result);

} // namespace hetc::hgraph

#endif // HETC_DIALECTS_HGRAPH_IR_HGRAPHFOLD_H
