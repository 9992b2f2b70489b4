//===- Lowering.h - Shared parts of the hgraph to htile patterns -*- C++
//-*-===//
//
// hetc-convert-hgraph-to-htile is a dialect conversion: tensors become
// memref buffers (the type converter), and each hgraph op is rewritten by
// one pattern into the htile kernels that write its result buffers. The
// patterns live in one file per op family, each with a populate function
// declared here:
//
//   ElementwisePatterns.cpp    arithmetic, comparisons, logic, where, cast
//   BitwisePatterns.cpp        bitwise and/or/xor/not, shifts
//   QuantizationPatterns.cpp   quantize, dequantize, matmul_integer
//   ReductionPatterns.cpp      reduce, arg_max/arg_min, softmax
//   LinearAlgebraPatterns.cpp  linear, matmul
//   ConvolutionPatterns.cpp    conv, depthwise_conv_nhwc, max/average pooling
//   DataMovementPatterns.cpp   reshape, transpose, concat, split, slice, pad,
//                              tile, expand, gather, gather_elements,
//                              gather_rows
//
// A pattern derives from HTilePattern<Op> and writes `lower`, building
// kernels through a KernelBuilder: `buffer(v)` is the buffer of operand v
// in v's shape (a constant gets its htile.constant on first use, so that
// constants folded into others take no SRAM), `map(result, b)` says which
// buffer holds a result.
//
// A buffer holds its tensor's elements in row-major order, but its rows
// need not be the tensor's: a convolution holds [N, C, H, W] as
// [N, C, H*W], whose rows fill whole vectors where rows of W would leave
// most lanes empty (docs/architecture.md, "Data layout"). `held(v)` is the
// buffer as it lies; kernels that address elements by their flat index
// (moves, convolution windows, elementwise kernels: `elementwiseLayout`)
// read it so, and `buffer(v)` regroups it, once for all readers, for the
// kernels that need the tensor's own rows. A pattern that cannot lower its op
// reports why at the op and returns failure; HTilePattern then stands
// placeholder buffers in for the results so that the conversion goes on and
// reports every op that cannot be lowered, not only the first (the pass fails
// at the end).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_HGRAPHTOHTILE_LOWERING_H
#define HETC_COMPILER_PASSES_HGRAPHTOHTILE_LOWERING_H

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/GatherIndices.h"
#include "compiler/passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"

namespace hetc::tiling {

/// The lane type of `v`'s elements (i32 for the integer types held as i32;
/// see hisa::laneTypeOf); null when the chip does not hold them.
mlir::Type laneOf(mlir::Value v);
mlir::Type elementOf(mlir::Value v);
inline bool isI32(mlir::Type t) { return t.isSignlessInteger(32); }
inline bool isBool(mlir::Type t) { return t.isSignlessInteger(1); }
inline bool isByte(mlir::Type t) {
  return t.isSignlessInteger(8) || t.isUnsignedInteger(8);
}
/// The buffer type of a tensor value: same shape and element type.
mlir::MemRefType bufferType(mlir::Value tensor);
/// The 8- and 16-bit integer types, whose arithmetic the chip computes in
/// i32 and wraps back (KernelBuilder::wrapKernel); null for other types.
mlir::IntegerType wrappingType(mlir::Type type);
/// Whether a matrix plane can transpose tiles of `type` (multiplying by an
/// identity of that type is exact): the float types and 8-bit integers.
bool planeTransposes(mlir::Type type);
/// `type` as MLIR prints it, quoted, for messages built before they are
/// emitted.
std::string typeString(mlir::Type type);
/// The error for an operation on a type held as i32 (hisa::isNarrowHeld)
/// whose result could leave the type's range.
mlir::InFlightDiagnostic narrowHeldError(mlir::Operation *op,
                                         llvm::StringRef what, mlir::Type type);

/// The buffer that `value`, an operand as the conversion hands it to a
/// pattern, stands for: looks through the casts the conversion inserts
/// between a buffer and the buffer or tensor type its user expects.
mlir::Value underlyingBuffer(mlir::Value value);

/// What the patterns of one conversion share.
struct LoweringState {
  explicit LoweringState(const chip::ChipSpec &chip) : chip(chip) {}
  const chip::ChipSpec &chip;
  /// The htile.constant of each hgraph.constant result read by a kernel.
  llvm::DenseMap<mlir::Value, mlir::Value> constants;
  /// The lanes x lanes identity constant of each element type.
  llvm::DenseMap<mlir::Type, mlir::Value> identities;
  /// Placeholder buffers standing for the results of ops that failed.
  llvm::DenseSet<mlir::Value> placeholders;
  /// The row scatters whose table nothing else reads (found before the
  /// conversion, which adds uses of its own): they write it in place.
  llvm::DenseSet<mlir::Operation *> inPlaceScatters;
  /// The buffers regrouped from a held buffer into another shape, by held
  /// buffer and type: one copy serves every reader.
  llvm::DenseMap<std::pair<mlir::Value, mlir::Type>, mlir::Value> regrouped;
  /// Set when any op failed to lower (and said why).
  bool failed = false;
};

/// Whether the rows of `tensor`'s buffer may be replaced in place: no op
/// but its one user reads the tensor, or the tensor it is a reshape of,
/// and it is not a constant.
bool writableInPlace(mlir::Value tensor);

/// The operand buffers of the op being lowered and the buffers of its
/// results, as its pattern maps them.
struct OpBuffers {
  mlir::IRMapping operands;
  mlir::IRMapping results;
};

/// The shapes an elementwise kernel runs in (KernelBuilder::
/// elementwiseLayout): its result's, and each operand's, which broadcasts
/// to it as numpy does.
struct ElementwiseLayout {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<llvm::SmallVector<int64_t>> operands;
};

/// Builds the htile kernels of one op at the rewriter's insertion point.
/// Copies share the op's buffers, so a family's own builder can be made
/// from the one a pattern is given.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &builder, LoweringState &state,
                OpBuffers &current)
      : builder(builder), chip(state.chip), state(state), current(current) {}

  mlir::OpBuilder &builder;
  const chip::ChipSpec &chip;

  /// The buffer holding operand `tensor` of the op as it lies: the
  /// tensor's elements in row-major order, in rows that may merge its
  /// trailing dimensions. A constant gets its htile.constant here on first
  /// use, in its own shape.
  mlir::Value held(mlir::Value tensor) const;
  /// The buffer of operand `tensor` in the tensor's own shape.
  mlir::Value buffer(mlir::Value tensor) const;
  /// The buffer of operand `tensor` regrouped into `shape`, which holds as
  /// many elements: the held buffer itself, a view of it when the row
  /// length stays, else a copy made once for every reader.
  mlir::Value bufferAs(mlir::Value tensor, llvm::ArrayRef<int64_t> shape) const;
  /// Where an elementwise kernel writing `result` from `operands` runs:
  /// in the rows a full-size operand is held in, when those merge the
  /// result's trailing dimensions (from some axis on) and every operand is
  /// either full or of size 1 along all the merged ones; else in the
  /// result's own shape. Read the operands with `bufferAs`.
  ElementwiseLayout elementwiseLayout(mlir::ValueRange operands,
                                      mlir::Value result) const;
  /// Records that `buffer` holds the op's result `tensor`.
  void map(mlir::Value tensor, mlir::Value buffer) const {
    current.results.map(tensor, buffer);
  }

  mlir::Value alloc(mlir::MemRefType type, mlir::Location loc) const;
  mlir::Value alloc(mlir::Value tensor) const {
    return alloc(bufferType(tensor), tensor.getLoc());
  }
  /// Elementwise kernels on buffers, each writing a new buffer of `shape`
  /// (the kernel's result) in `element` type.
  mlir::Value binaryKernel(mlir::Location loc, htile::BinaryKind kind,
                           mlir::Value lhs, mlir::Value rhs,
                           llvm::ArrayRef<int64_t> shape,
                           mlir::Type element) const;
  mlir::Value castKernel(mlir::Location loc, mlir::Value input,
                         mlir::Type element) const;
  /// A new buffer of `lhs`'s type holding `lhs <kind> rhs` (broadcast).
  mlir::Value combine(mlir::Location loc, htile::BinaryKind kind,
                      mlir::Value lhs, mlir::Value rhs) const;
  /// The shape an elementwise kernel over `shape` (32-bit lanes) runs in
  /// when one operand is a constant of one value, expanded to rows:
  /// [R / 2, 2, L] where the R rows are an odd number of vectors long and
  /// R is even, so that the constant, two copies of its row (splatRows), is
  /// read from both banks of its slice in turn (consecutive vectors of a
  /// buffer alternate banks); otherwise `shape`, whose rows of an even
  /// number of vectors alternate banks by themselves.
  llvm::SmallVector<int64_t> splatCopiesShape(llvm::ArrayRef<int64_t> shape) const;
  /// A constant of `rows` rows of `length` elements, all `value` (of its
  /// type): [length] for one row, [rows, length] for copies.
  mlir::Value splatRows(mlir::Location loc, mlir::TypedAttr value, int64_t rows,
                        int64_t length) const;
  /// An i32 row of `length` elements, all `value`.
  mlir::Value splatRow(mlir::Location loc, int64_t length, int32_t value) const;
  /// `value` (i32, of `shape`) wrapped into the range of the 8- or 16-bit
  /// integer type `type` as two's complement arithmetic would: a floored
  /// modulo by 2^width, shifted by 2^(width-1) for signed types.
  mlir::Value wrapKernel(mlir::Location loc, mlir::Value value,
                         llvm::ArrayRef<int64_t> shape,
                         mlir::IntegerType type) const;
  /// An f32 constant buffer of `shape`.
  mlir::Value constantBuffer(mlir::Location loc, llvm::ArrayRef<int64_t> shape,
                             llvm::ArrayRef<float> values) const;
  /// A lanes x lanes identity constant of `type`, created on first use at
  /// the top of the function.
  mlir::Value identity(mlir::Location loc, mlir::Type type) const;
  /// A new buffer of `shape` holding `input`'s elements in order (a view
  /// when the row length stays).
  mlir::Value regroup(mlir::Location loc, mlir::Value input,
                      llvm::ArrayRef<int64_t> shape) const;
  /// Fills `out` with `inputs`' elements by the index map `indices` (one
  /// entry per element of `out`): one htile.gather, or several filling
  /// bands of rows when the map is longer than one gather's.
  void move(mlir::Location loc, mlir::ValueRange inputs, mlir::Value out,
            llvm::ArrayRef<int64_t> indices) const;
  /// Reduces the innermost axis of the buffer `input` (a mean divides the
  /// sum by the count). Returns the results as a column ([.., 1]) or, with
  /// `packed` and rank >= 2, transposed into rows ([.., 1, n]).
  mlir::Value reduceInnermost(mlir::Location loc, hisa::VReduceKind kind,
                              bool mean, mlir::Value input, bool packed) const;
  /// Fails, naming `op`, when `count` elements are more than the chip's
  /// SRAM could hold: the bound on a move's index map.
  mlir::LogicalResult checkMovement(mlir::Operation *op, uint64_t count,
                                    const llvm::Twine &what) const;
  /// Writes `result` with an htile.gather of `inputs` by the map that
  /// `indices` computes (or fails, having said why); the result's size is
  /// checked first, so that no map larger than the chip's SRAM is ever
  /// built.
  mlir::LogicalResult gatherInto(
      mlir::Operation *op, mlir::ValueRange inputs, mlir::Value result,
      llvm::function_ref<mlir::FailureOr<gather::Indices>()> indices) const;
  /// Whether the row scatter `op` writes its table in place.
  bool inPlace(mlir::Operation *op) const {
    return state.inPlaceScatters.contains(op);
  }
  /// The matrix unit's tile, [1, rows, cols], as matmul kernels take it.
  mlir::DenseI64ArrayAttr matmulTile() const;

private:
  LoweringState &state;
  OpBuffers &current;
};

/// Lowers one op through `lower`, after the checks every op shares: an
/// operand from an op that failed makes this op fail quietly (it was
/// reported there), and every tensor a kernel touches must be of a type
/// the chip holds. On failure the results become placeholder buffers.
mlir::LogicalResult
lowerWithChecks(mlir::Operation *op, mlir::ValueRange converted,
                mlir::ConversionPatternRewriter &rewriter, LoweringState &state,
                llvm::function_ref<mlir::LogicalResult(KernelBuilder &)> lower);

/// The base of every hgraph to htile pattern.
template <typename OpTy>
class HTilePattern : public mlir::OpConversionPattern<OpTy> {
public:
  HTilePattern(const mlir::TypeConverter &converter, mlir::MLIRContext *context,
               LoweringState &state)
      : mlir::OpConversionPattern<OpTy>(converter, context), state(state) {}

  mlir::LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    return lowerWithChecks(
        op, adaptor.getOperands(), rewriter, state,
        [&](KernelBuilder &kernels) { return lower(op, kernels); });
  }

  /// Builds the kernels of `op` and maps each of its results to a buffer;
  /// or reports why it cannot and fails.
  virtual mlir::LogicalResult lower(OpTy op, KernelBuilder &kernels) const = 0;

protected:
  LoweringState &state;
};

/// The pattern whose lowering is the function `Lower`: adding an op to a
/// family is one function and one line in its populate function.
template <typename OpTy,
          mlir::LogicalResult (*Lower)(OpTy, const KernelBuilder &)>
class LowerWith final : public HTilePattern<OpTy> {
public:
  using HTilePattern<OpTy>::HTilePattern;
  mlir::LogicalResult lower(OpTy op, KernelBuilder &kernels) const override {
    return Lower(op, kernels);
  }
};

/// The pattern whose lowering is `Lower` with the constant `Param` (an
/// htile kernel kind, a direction): one template serves every op of a
/// family that differs only in that.
template <typename OpTy, typename ParamT, ParamT Param,
          mlir::LogicalResult (*Lower)(mlir::Operation *, ParamT,
                                       const KernelBuilder &)>
class LowerWithParam final : public HTilePattern<OpTy> {
public:
  using HTilePattern<OpTy>::HTilePattern;
  mlir::LogicalResult lower(OpTy op, KernelBuilder &kernels) const override {
    return Lower(op, Param, kernels);
  }
};

/// Lowers `op` (two operands) to one htile.binary of `kind`, computing in
/// i32 where the element type needs it (Elementwise family; the bitwise
/// ops use it too).
mlir::LogicalResult lowerBinary(mlir::Operation *op, htile::BinaryKind kind,
                                const KernelBuilder &kernels);

// One populate function per op family.
void populateElementwisePatterns(mlir::RewritePatternSet &patterns,
                                 const mlir::TypeConverter &converter,
                                 LoweringState &state);
void populateBitwisePatterns(mlir::RewritePatternSet &patterns,
                             const mlir::TypeConverter &converter,
                             LoweringState &state);
void populateQuantizationPatterns(mlir::RewritePatternSet &patterns,
                                  const mlir::TypeConverter &converter,
                                  LoweringState &state);
void populateReductionPatterns(mlir::RewritePatternSet &patterns,
                               const mlir::TypeConverter &converter,
                               LoweringState &state);
void populateLinearAlgebraPatterns(mlir::RewritePatternSet &patterns,
                                   const mlir::TypeConverter &converter,
                                   LoweringState &state);
void populateConvolutionPatterns(mlir::RewritePatternSet &patterns,
                                 const mlir::TypeConverter &converter,
                                 LoweringState &state);
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns,
                                  const mlir::TypeConverter &converter,
                                  LoweringState &state);

} // namespace hetc::tiling

#endif // HETC_COMPILER_PASSES_HGRAPHTOHTILE_LOWERING_H
