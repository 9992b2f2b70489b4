//===- OnnxOps.h - Per-operator ONNX import rules ---------------*- C++ -*-===//
#ifndef HETC_COMPILER_FRONTEND_ONNXOPS_H
#define HETC_COMPILER_FRONTEND_ONNXOPS_H

#include "compiler/frontend/OnnxImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

namespace hetc::frontend {

/// What an operator import rule sees of one ONNX node.
struct NodeContext {
  mlir::OpBuilder &builder;
  mlir::Location loc;
  const onnx::NodeProto &node;
  /// The node's name (or a generated one when the model leaves it empty).
  std::string name;
  /// The default-domain opset the model imports.
  int64_t opset;
  /// The node's inputs; a missing optional input is a null Value.
  llvm::SmallVector<mlir::Value> inputs;

  /// Imports one of the node's graph attributes inline, its inputs bound
  /// to `inputs`, and returns its outputs (set by the importer; null where
  /// no graph can be imported).
  llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
      const onnx::GraphProto &, mlir::ArrayRef<mlir::Value>)>
      inlineGraph = nullptr;

  /// The most elements a tensor, or a table of indices, the node makes may
  /// have: the chip's (ImportOptions::maxElements), set by the importer.
  int64_t maxElements = int64_t(1) << 30;

  /// Emits an error naming the node's op type and opset (the location
  /// names the node).
  mlir::InFlightDiagnostic error();

  /// Creates `OpTy` at the node and folds it when its operands are
  /// constants, so that shape computations resolve during import.
  template <typename OpTy, typename... Args>
  mlir::Value create(Args &&...args) {
    return builder.createOrFold<OpTy>(loc, std::forward<Args>(args)...);
  }
  /// The present input `i`, or null when missing.
  mlir::Value input(size_t i) const {
    return i < inputs.size() ? inputs[i] : mlir::Value();
  }

  /// Attribute lookups with ONNX defaults.
  int64_t intAttr(llvm::StringRef name, int64_t fallback) const;
  float floatAttr(llvm::StringRef name, float fallback) const;
  std::optional<llvm::SmallVector<int64_t>>
  intsAttr(llvm::StringRef name) const;
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  std::string stringAttr(llvm::StringRef name, llvm::StringRef fallback) const;
};

/// Imports one node; returns its results (one Value per ONNX output).
using ImportRule =
    mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(NodeContext &);

/// The rule for `opType` in the default domain, or null if unsupported.
ImportRule lookupImportRule(llvm::StringRef opType);
/// The rule for `opType` in the ai.onnx.preview.training domain, or null.
ImportRule lookupTrainingRule(llvm::StringRef opType);
/// The rule for `opType` in the ai.onnx.preview domain, or null.
ImportRule lookupPreviewRule(llvm::StringRef opType);
/// The rule for `opType` in `domain` ("" is the default domain), or null.
ImportRule lookupImportRule(llvm::StringRef domain, llvm::StringRef opType);

/// Adds the rules of one group of operators to `rules`.
void addElementwiseRules(llvm::StringMap<ImportRule> &rules);
void addShapeRules(llvm::StringMap<ImportRule> &rules);
void addNNRules(llvm::StringMap<ImportRule> &rules);
void addAttentionRules(llvm::StringMap<ImportRule> &rules);
void addLossRules(llvm::StringMap<ImportRule> &rules);
void addIndexRules(llvm::StringMap<ImportRule> &rules);
void addScatterRules(llvm::StringMap<ImportRule> &rules);
void addRecurrentRules(llvm::StringMap<ImportRule> &rules);
void addStatNormRules(llvm::StringMap<ImportRule> &rules);
void addEinsumRule(llvm::StringMap<ImportRule> &rules);
void addRotaryRule(llvm::StringMap<ImportRule> &rules);
void addStatefulConvRule(llvm::StringMap<ImportRule> &rules);
void addLinearAttentionRule(llvm::StringMap<ImportRule> &rules);
void addAffineGridRule(llvm::StringMap<ImportRule> &rules);
void addGridSampleRule(llvm::StringMap<ImportRule> &rules);
void addIntegerConvRules(llvm::StringMap<ImportRule> &rules);
void addRoiAlignRule(llvm::StringMap<ImportRule> &rules);
void addSpectralRules(llvm::StringMap<ImportRule> &rules);
void addValueShapedRules(llvm::StringMap<ImportRule> &rules);

/// Helpers shared by the rule files.
mlir::RankedTensorType tensorType(mlir::Value v);
/// `v` reshaped to `shape` (its element type kept); `v` itself when it has
/// that shape already.
mlir::Value reshapeTo(NodeContext &ctx, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape);
/// Checks the count of present inputs is in [min, max] and the first `min`
/// are present.
mlir::LogicalResult expectInputs(NodeContext &ctx, size_t min, size_t max);
/// The value of `v` when it is a constant, or computed from constants
/// alone: by an evaluation of the ops that compute it (see
/// ConstantEvaluation) where no folder resolved it. Null otherwise.
mlir::DenseElementsAttr constantValue(mlir::Value v);
/// Where `v` is computed from constants but constantValue could not
/// evaluate it, why ("; it is computed from constants, but ..."), for the
/// error of a rule that needs it; "" otherwise.
std::string whyNotEvaluated(mlir::Value v);
/// The values of a constant integer tensor, or nullopt if `v` is not one.
std::optional<llvm::SmallVector<int64_t>> constantInts(mlir::Value v);
/// The values of a constant float tensor, or nullopt if `v` is not one.
std::optional<llvm::SmallVector<double>> constantFloats(mlir::Value v);

/// Makes constantValue evaluate subgraphs of constants with `evaluate`
/// while it lives (one import at a time per thread); results are kept per
/// value.
class ConstantEvaluation {
public:
  using Evaluator = ConstantEvaluator;
  explicit ConstantEvaluation(Evaluator evaluate);
  ~ConstantEvaluation();
  ConstantEvaluation(const ConstantEvaluation &) = delete;
  ConstantEvaluation &operator=(const ConstantEvaluation &) = delete;

  /// The most ops one evaluation may take, and the most elements its
  /// result may have: a constant subgraph larger than that stays on the
  /// chip (and a rule that needs its value says so).
  static constexpr size_t kMaxOps = 4096;
  static constexpr int64_t kMaxElements = int64_t(1) << 16;

  /// The value of `v` (an op's result computed from constants alone), or
  /// null.
  mlir::DenseElementsAttr evaluate(mlir::Value v);
  /// The evaluation in force on this thread, or null.
  static ConstantEvaluation *current();
  /// Why the value `v`, computed from constants alone, was not evaluated
  /// (too many ops or elements, or the evaluator's first error); "" where
  /// it was, or where it is not computed from constants alone.
  std::string refusal(mlir::Value v) const { return refusals.lookup(v); }

private:
  Evaluator evaluator;
  ConstantEvaluation *previous;
  llvm::DenseMap<mlir::Value, mlir::DenseElementsAttr> known;
  llvm::DenseMap<mlir::Value, std::string> refusals;
};
/// Normalises `axis` into [0, rank) or reports it; `what` names it.
mlir::FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis,
                                       int64_t rank,
                                       llvm::StringRef what = "axis");
/// The numpy broadcast of the shapes of `a` and `b`, with `element` (`a`'s
/// element type when null). The shapes must broadcast.
mlir::RankedTensorType broadcastResultType(mlir::Value a, mlir::Value b,
                                           mlir::Type element = {});
/// `OpTy` of `a` and `b` with the broadcast result type.
template <typename OpTy>
mlir::Value broadcastBinary(NodeContext &ctx, mlir::Value a, mlir::Value b,
                            mlir::Type element = {}) {
  return ctx.create<OpTy>(broadcastResultType(a, b, element), a, b);
}
/// A scalar constant of `element` (float, integer or i1) holding `value`
/// (rounded to nearest even for floats, truncated for integers).
mlir::Value scalarConstant(NodeContext &ctx, mlir::Type element, double value);
/// The positions 0..n-1 as an i64 constant laid along dimension `axis` of
/// a tensor of rank `rank` (unit dimensions elsewhere).
mlir::Value positionsAlong(NodeContext &ctx, int64_t n, int64_t axis,
                           int64_t rank);
/// Integer `indices` into a dimension of size `n`, negative ones counted
/// from its end (index + n where index < 0).
mlir::Value wrapIndices(NodeContext &ctx, mlir::Value indices, int64_t n);
/// Casts `v` to `element` (no-op if it already has it).
mlir::Value castTo(NodeContext &ctx, mlir::Value v, mlir::Type element);
/// The ONNX name of a TensorProto data type ("FLOAT"), or its number.
std::string dataTypeName(int dataType);
/// The MLIR element type of an ONNX TensorProto data type, or null.
mlir::Type elementTypeOf(int dataType, mlir::MLIRContext *context);

/// Window attributes of Conv, ConvTranspose and the pools, with ONNX
/// defaults; `kernel` is the spatial kernel size.
struct Window {
  llvm::SmallVector<int64_t> kernel, strides, pads, dilations;
};
/// The window of the node's strides, dilations, pads and auto_pad (the
/// latter resolved against the spatial sizes `in`; `transposed` for
/// ConvTranspose).
mlir::FailureOr<Window> windowOf(NodeContext &ctx,
                                 llvm::ArrayRef<int64_t> kernel,
                                 llvm::ArrayRef<int64_t> in, bool transposed);
/// The spatial output sizes of a convolution or pool of window `w` over
/// `spatial`, or an error where the kernel does not fit.
mlir::FailureOr<llvm::SmallVector<int64_t>>
convOutputSizes(NodeContext &ctx, const Window &w,
                llvm::ArrayRef<int64_t> spatial);

/// Reads the bytes of a tensor kept in an external file (the importer
/// knows the model's folder). Returns false with `error` set.
using ExternalDataReader = llvm::function_ref<bool(
    const onnx::TensorProto &tensor, std::string &bytes, std::string &error)>;

/// The most elements a tensor may have where no chip sets the limit: the
/// importer passes the chip's (ImportOptions::maxElements).
constexpr int64_t kDefaultMaxElements = int64_t(1) << 30;

/// The number of elements of `shape` when every dimension is non-negative
/// and the count is at most `limit`, computed without overflow; otherwise
/// nullopt with `error` saying which.
std::optional<int64_t> boundedElementCount(llvm::ArrayRef<int64_t> shape,
                                           int64_t limit, std::string &error);

/// Converts a TensorProto (raw or typed fields, or external data through
/// `reader`) into an elements attribute of at most `maxElements` elements;
/// on failure `error` says why.
mlir::FailureOr<mlir::DenseElementsAttr>
tensorToAttr(const onnx::TensorProto &tensor, mlir::MLIRContext *context,
             std::string &error, ExternalDataReader reader = nullptr,
             int64_t maxElements = kDefaultMaxElements);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_ONNXOPS_H
