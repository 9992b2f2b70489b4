//===- Expansion.h - Shared parts of the htile to hisa patterns -*- C++ -*-===//
//
// hetc-convert-htile-to-hisa expands each htile kernel into the hisa
// instructions that compute it, in program order, through one pattern per
// kernel. The buffers' addresses are bound first (ConvertHTileToHIsa.cpp);
// the patterns live in one file per kernel family, each with a populate
// function declared here:
//
//   ElementwiseExpansion.cpp   binary, select, cast, unary
//   MatrixExpansion.cpp        matmul, transpose
//   ReductionExpansion.cpp     reduce, softmax
//   DataMovementExpansion.cpp  gather, gather_rows
//   ConvolutionExpansion.cpp   depthwise_conv
//
// A family's expander derives from InstructionBuilder, which has the
// instruction builders (read, write, binary, unary, reduce, convert,
// permute, spread) and hands out planes and switch units round-robin
// across kernels. A kernel that cannot be expanded is reported at its node
// and the pass fails after reporting every such kernel.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_PASSES_HTILETOHISA_EXPANSION_H
#define HETC_COMPILER_PASSES_HTILETOHISA_EXPANSION_H

#include "compiler/passes/ChipLoader.h"
#include "compiler/passes/Passes.h"

#include "mlir/Transforms/DialectConversion.h"

namespace hetc::expansion {

/// A buffer as the instructions see it: base row and layout.
struct Tensor {
  int64_t base;
  BufferLayout layout;
  /// Where chunk `j` of row `r` is, as an SRAM word (BufferLayout::word),
  /// which read() and write() split into a row and a part.
  int64_t at(int64_t r, int64_t j) const {
    return layout.word(base, r * layout.vectorsPerRow + j);
  }
};

/// What the patterns of one expansion share.
struct ExpansionState {
  explicit ExpansionState(const chip::ChipSpec &chip) : chip(chip) {}
  const chip::ChipSpec &chip;
  /// The SRAM row of every buffer (views share their source's).
  llvm::DenseMap<mlir::Value, int64_t> addresses;
  /// Matrix planes are used round-robin across tiles and kernels so that
  /// one tile's weights load while another plane computes.
  uint32_t nextPlane = 0;
  /// Matmuls take groups of one side's planes in turn, across kernels too.
  uint32_t nextPlaneGroup = 0;
  /// Switch units, likewise round-robin per assembled vector.
  uint32_t nextSwitch = 0;
  /// Whether the function puts integer words in a plane (an integer
  /// matmul or transpose), which a float matmul's rows past K may then
  /// hold: found once, before the expansion.
  bool integerPlanes = false;
  /// Set when a kernel could not be expanded (and said why).
  bool failed = false;
};

/// The lane type of buffer `v`'s elements (i32 for i64).
mlir::Type elementOf(mlir::Value v);

/// `train` without its step, as an instruction that does not step (a
/// vector instruction) repeats it.
hisa::TrainAttr repeatOnly(hisa::TrainAttr train);

/// Builds the instructions of one kernel at the builder's insertion point.
class InstructionBuilder {
public:
  InstructionBuilder(mlir::OpBuilder &builder, ExpansionState &state)
      : b(builder), chip(state.chip), lanes(state.chip.lanes()), state(state) {}

protected:
  Tensor tensor(mlir::Value buffer) const;
  /// ExpansionState::integerPlanes.
  bool integerPlanes() const { return state.integerPlanes; }
  /// Lanes used by chunk `j` of a row of `cols` elements.
  int32_t lanesOf(int64_t cols, int64_t j) const {
    return int32_t(std::min<int64_t>(lanes, cols - j * lanes));
  }
  mlir::Type vec() const;
  /// The `dtype` attribute for lanes of `type`: none for f32, the default.
  mlir::TypeAttr dtype(mlir::Type type) const;
  mlir::Type f32() const { return b.getF32Type(); }
  /// The `part` attribute of the vector of `type` at SRAM `word`: none
  /// for part 0.
  mlir::IntegerAttr partOf(int64_t word, mlir::Type type) const;
  /// Reads the vector of `type` (f32 if null) at SRAM `word` (Tensor::at);
  /// with `train`, a train of reads from there; with `parts` > 1, that
  /// many vectors of its row at once (a weight load's).
  mlir::Value read(mlir::Location loc, int64_t word, mlir::Type type = {},
                   hisa::TrainAttr train = {}, int32_t parts = 1) const;
  /// Writes `v` at SRAM `word`; with `train`, a train of writes from
  /// there (of the vectors of a train `v`).
  void write(mlir::Location loc, mlir::Value v, int64_t word,
             mlir::Type type = {}, hisa::TrainAttr train = {}) const;
  /// The vector instructions; with `train`, a train of them (its step is
  /// dropped: vector instructions do not step), whose operands are trains
  /// as long and as spaced.
  mlir::Value binary(mlir::Location loc, hisa::VBinaryKind kind, mlir::Value x,
                     mlir::Value y, int32_t n, mlir::Type type = {},
                     hisa::TrainAttr train = {}) const;
  mlir::Value unary(mlir::Location loc, hisa::VUnaryKind kind, mlir::Value x,
                    int32_t n, mlir::Type type = {},
                    hisa::TrainAttr train = {}) const;
  mlir::Value reduce(mlir::Location loc, hisa::VReduceKind kind, mlir::Value x,
                     int32_t n, mlir::Type type = {},
                     hisa::TrainAttr train = {}) const;
  mlir::Value convert(mlir::Location loc, mlir::Value x, mlir::Type from,
                      mlir::Type to, int32_t n,
                      hisa::CastOverflowAttr overflow = {},
                      hisa::E8M0RoundingAttr rounding = {},
                      hisa::TrainAttr train = {}, int32_t parts = 1) const;
  mlir::Value permute(mlir::Location loc, mlir::Value input, mlir::Value into,
                      uint32_t unit, llvm::ArrayRef<int32_t> map,
                      mlir::Type type = {}) const;
  /// `x`'s lane 0 in every lane: a one-lane sum reduction where the vector
  /// unit reduces the type (f32, f16, bf16, i32), else a permute on a switch
  /// unit, which moves lane words of any type.
  /// With `train`, a train of one-lane reductions (the type must be one
  /// the vector unit reduces: a permute does not repeat).
  mlir::Value spread(mlir::Location loc, mlir::Value x, mlir::Type type,
                     hisa::TrainAttr train = {}) const;
  /// `x`'s lane `lane` in every lane (hisa.vbroadcast; f32, f16, bf16 or
  /// i32 lanes); with `train`, a train of them.
  mlir::Value spreadLane(mlir::Location loc, mlir::Value x, uint32_t lane,
                         mlir::Type type, hisa::TrainAttr train = {}) const;
  /// The next switch unit and matrix plane, round-robin.
  uint32_t takeSwitch() const;
  uint32_t takePlane() const;
  /// The first `count` planes of the next of `groups`, in turn across
  /// kernels; the next takePlane gives the plane after them.
  llvm::SmallVector<uint32_t>
  takePlaneGroup(llvm::ArrayRef<llvm::SmallVector<uint32_t>> groups,
                 size_t count) const;

  mlir::OpBuilder &b;
  const chip::ChipSpec &chip;
  uint32_t lanes;

private:
  ExpansionState &state;
};

/// The pattern expanding OpTy with the member `Expand` of the family's
/// expander `Expander` (an InstructionBuilder): adding a kernel to a
/// family is one member function and one line in its populate function.
/// The kernel is erased once expanded; one that fails has said why, and
/// the expansion goes on to report the others.
template <typename OpTy, typename Expander,
          mlir::LogicalResult (Expander::*Expand)(OpTy)>
class ExpandWith final : public mlir::OpConversionPattern<OpTy> {
public:
  ExpandWith(mlir::MLIRContext *context, ExpansionState &state)
      : mlir::OpConversionPattern<OpTy>(context), state(state) {}

  mlir::LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const override {
    Expander expander(rewriter, state);
    if (failed((expander.*Expand)(op)))
      state.failed = true;
    rewriter.eraseOp(op);
    return mlir::success();
  }

private:
  ExpansionState &state;
};

// One populate function per kernel family.
void populateElementwiseExpansions(mlir::RewritePatternSet &patterns,
                                   ExpansionState &state);
void populateMatrixExpansions(mlir::RewritePatternSet &patterns,
                              ExpansionState &state);
void populateReductionExpansions(mlir::RewritePatternSet &patterns,
                                 ExpansionState &state);
void populateDataMovementExpansions(mlir::RewritePatternSet &patterns,
                                    ExpansionState &state);
void populateConvolutionExpansions(mlir::RewritePatternSet &patterns,
                                   ExpansionState &state);

} // namespace hetc::expansion

#endif // HETC_COMPILER_PASSES_HTILETOHISA_EXPANSION_H
