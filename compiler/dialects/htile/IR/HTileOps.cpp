//===- HTileOps.cpp - htile verifiers ---------------------------------===//

#include "compiler/dialects/htile/IR/HTile.h"

#include "compiler/dialects/common/DepthwiseWindow.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace hetc::htile;

#define GET_OP_CLASSES
#include "compiler/dialects/htile/IR/HTileOps.cpp.inc"

namespace {
/// True if `row` is one row of `full`: its last dimension equals the row
/// length of `full` and every other dimension is 1.
bool isRowOf(MemRefType row, MemRefType full) {
  return row.getRank() >= 1 && full.getRank() >= 1 &&
         row.getNumElements() == full.getShape().back() &&
         row.getShape().back() == full.getShape().back();
}
} // namespace

LogicalResult ConstantOp::verify() {
  auto valueType = cast<ShapedType>(getValue().getType());
  MemRefType type = getType();
  if (valueType.getShape() != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError("value of type ")
           << valueType << " does not fit buffer " << type;
  return success();
}

LogicalResult ViewOp::verify() {
  MemRefType from = getSource().getType(), to = getType();
  // f32 and i32 are one 32-bit lane word each (a bit cast).
  auto word = [](Type t) { return t.isF32() || t.isSignlessInteger(32); };
  Type a = from.getElementType(), b = to.getElementType();
  std::optional<int64_t> first = getFirstRow();
  if ((a != b && !(word(a) && word(b))) ||
      (!first && from.getNumElements() != to.getNumElements()))
    return emitOpError("cannot view ")
           << from << " as " << to
           << ": element type (or f32 as i32 and the reverse) and count "
              "must match";
  // A scalar is laid out as one row of one element.
  int64_t fromRow = from.getRank() ? from.getShape().back() : 1;
  int64_t toRow = to.getRank() ? to.getShape().back() : 1;
  if (fromRow != toRow)
    return emitOpError("cannot view ")
           << from << " as " << to
           << ": the innermost dimension (row length) must not change";
  if (first && fromRow > 0) {
    int64_t sourceRows = from.getNumElements() / fromRow;
    int64_t rows = to.getNumElements() / toRow;
    if (*first + rows > sourceRows)
      return emitOpError("rows [")
             << *first << ", " << *first + rows << ") are not rows of " << from
             << ", which has " << sourceRows;
  }
  return success();
}

/// An interleaved weight: p rows of each column tile side by side (see
/// the op's description), for the shapes the rest of verify() checks.
static LogicalResult verifyInterleave(MatMulOp op, int64_t interleave) {
  MemRefType x = op.getInput().getType(), w = op.getWeight().getType(),
             y = op.getOutput().getType();
  // The planes take the weight in the input's type: an i8 weight of an
  // f16 or bf16 matmul is converted on its way, two rows to a load.
  Type type = w.getElementType(), installed = x.getElementType();
  bool converted =
      type.isInteger(8) && (installed.isF16() || installed.isBF16());
  if (type != installed && !converted)
    return op.emitOpError("an interleaved weight must have the input's type (")
           << installed << ") or be i8 converted to it, not " << type;
  int64_t expected =
      32 / std::max<int64_t>(installed.getIntOrFloatBitWidth(), 8);
  if (installed.getIntOrFloatBitWidth() > 16 || interleave != expected)
    return op.emitOpError("interleave ")
           << interleave << " is not the vectors of " << installed
           << " an SRAM row holds"
           << (expected > 1
                   ? " (" + std::to_string(expected) + ")"
                   : std::string(" (32-bit weights do not interleave)"));
  if (op.getTransposed())
    return op.emitOpError("a transposed weight does not interleave");
  std::optional<ArrayRef<int64_t>> tile = op.getTile();
  if (!tile || tile->size() != 3 || (*tile)[1] <= 0 || (*tile)[2] <= 0)
    return op.emitOpError("an interleaved weight needs a tile, whose n sets "
                          "its layout");
  if ((*tile)[1] % interleave)
    return op.emitOpError("tile k (")
           << (*tile)[1] << ") must be a multiple of interleave " << interleave
           << ": an SRAM row's rows go to one plane";
  int64_t k = x.getDimSize(1), n = y.getDimSize(1), tileN = (*tile)[2];
  int64_t rows = (k + interleave - 1) / interleave;
  int64_t cols = (n + tileN - 1) / tileN * tileN * interleave;
  if (w.getDimSize(0) != rows || w.getDimSize(1) != cols)
    return op.emitOpError("interleaved weight must be ")
           << rows << "x" << cols << " for K = " << k << ", N = " << n
           << ", n = " << tileN << " and interleave " << interleave;
  return success();
}

LogicalResult MatMulOp::verify() {
  MemRefType x = getInput().getType(), w = getWeight().getType(),
             y = getOutput().getType();
  if (x.getRank() != 2 || w.getRank() != 2 || y.getRank() != 2)
    return emitOpError("input, weight and output must be 2-D");
  // A transposed weight is N x K.
  int64_t kDim = getTransposed() ? 1 : 0;
  if (std::optional<int64_t> interleave = getInterleave()) {
    if (y.getDimSize(0) != x.getDimSize(0))
      return emitOpError("output must have ") << x.getDimSize(0) << " rows";
    if (failed(verifyInterleave(*this, *interleave)))
      return failure();
  } else {
    if (x.getDimSize(1) != w.getDimSize(kDim))
      return emitOpError("contraction dimensions differ: input has ")
             << x.getDimSize(1) << ", weight has " << w.getDimSize(kDim)
             << (getTransposed() ? " (transposed: N x K)" : "");
    if (y.getDimSize(0) != x.getDimSize(0) ||
        y.getDimSize(1) != w.getDimSize(1 - kDim))
      return emitOpError("output must be ")
             << x.getDimSize(0) << "x" << w.getDimSize(1 - kDim);
  }
  if (getTransposed() && (w.getElementType() != x.getElementType() ||
                          getScale() || !isa<FloatType>(x.getElementType())))
    return emitOpError("a transposed weight must be a float of the input's "
                       "type (")
           << x.getElementType() << "), without a scale";
  if (Value bias = getBias())
    if (!isRowOf(cast<MemRefType>(bias.getType()), y))
      return emitOpError("bias must be one row of ")
             << y.getDimSize(1) << " elements";
  if (Value scale = getScale()) {
    auto type = cast<MemRefType>(scale.getType());
    if (!isRowOf(type, y) || !type.getElementType().isF32())
      return emitOpError("scale must be one f32 row of ")
             << y.getDimSize(1) << " elements";
  }
  Type in = x.getElementType();
  if (w.getElementType().isInteger(8) && !x.getElementType().isInteger(8) &&
      (!getScale() || !(in.isF16() || in.isBF16())))
    return emitOpError("an i8 weight of a float matmul needs a scale and an "
                       "f16 or bf16 input, to which its rows are converted");
  if (std::optional<ArrayRef<int64_t>> tile = getTile()) {
    if (tile->size() != 3 ||
        llvm::any_of(*tile, [](int64_t t) { return t <= 0; }))
      return emitOpError("tile must be three positive sizes [rows, k, n]");
    // Partial sums over K tiles pass through the output in the plane's
    // accumulator type (f32 or i32), which a narrower output cannot hold.
    Type out = y.getElementType();
    if (out.getIntOrFloatBitWidth() < 32 && x.getDimSize(1) > (*tile)[1])
      return emitOpError("output of ")
             << out << " cannot hold the f32 or i32 partial sums of a K ("
             << x.getDimSize(1) << ") spanning several tiles of " << (*tile)[1]
             << "; give it a 32-bit output and cast";
  }
  return success();
}

SmallVector<int64_t> BinaryOp::getBroadcastShape(unsigned operand) {
  MemRefType type = operand == 0 ? getLhs().getType() : getRhs().getType();
  std::optional<OperandSide> column = getColumn();
  if (column && unsigned(*column) == operand && type.getRank() >= 1)
    return {type.getShape().back(), 1};
  return SmallVector<int64_t>(type.getShape());
}

LogicalResult BinaryOp::verify() {
  MemRefType lhs = getLhs().getType(), rhs = getRhs().getType(),
             out = getOutput().getType();
  if (std::optional<OperandSide> side = getColumn()) {
    MemRefType column = *side == OperandSide::lhs ? lhs : rhs;
    Type element = column.getElementType();
    if (column.getRank() < 1 || column.getRank() > 2 ||
        !(element.isF32() || element.isSignlessInteger(32)))
      return emitOpError("a packed column is a 1-D buffer of f32 or i32, "
                         "or 2-D (copies of it), not ")
             << column;
  }
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(getBroadcastShape(0),
                                          getBroadcastShape(1), shape) ||
      ArrayRef<int64_t>(shape) != out.getShape())
    return emitOpError("operands ")
           << lhs << " and " << rhs
           << (getColumn() ? " (the column as R x 1)" : "")
           << " do not broadcast to the output " << out;
  return success();
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getOutput().getType().getShape())
    return emitOpError("output shape must equal input shape");
  Type to = getOutput().getType().getElementType();
  if (getOverflow() == CastOverflow::no_saturate &&
      !isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
           Float8E5M2FNUZType, Float8E8M0FNUType, Float4E2M1FNType>(to))
    return emitOpError("overflow no_saturate needs an 8- or 4-bit float "
                       "output, not ")
           << to;
  if (getOverflow() == CastOverflow::wrap && !isa<IntegerType>(to))
    return emitOpError("overflow wrap needs an integer output, not ") << to;
  if (getRounding() && !isa<Float8E8M0FNUType>(to))
    return emitOpError("rounding applies to f8E8M0FNU outputs only, not ")
           << to;
  return success();
}

LogicalResult SelectOp::verify() {
  MemRefType cond = getCondition().getType(), lhs = getLhs().getType(),
             rhs = getRhs().getType(), out = getOutput().getType();
  if (!cond.getElementType().isSignlessInteger(1))
    return emitOpError("condition must hold i1, not ") << cond.getElementType();
  if (lhs.getElementType() != out.getElementType() ||
      rhs.getElementType() != out.getElementType())
    return emitOpError("lhs, rhs and output must share an element type");
  SmallVector<int64_t> partial, shape;
  if (!OpTrait::util::getBroadcastedShape(cond.getShape(), lhs.getShape(),
                                          partial) ||
      !OpTrait::util::getBroadcastedShape(partial, rhs.getShape(), shape) ||
      ArrayRef<int64_t>(shape) != out.getShape())
    return emitOpError("operands do not broadcast to the output ") << out;
  return success();
}

LogicalResult UnaryOp::verify() {
  if (getInput().getType().getShape() != getOutput().getType().getShape())
    return emitOpError("output shape must equal input shape");
  return success();
}

LogicalResult SoftmaxOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (getOutput().getType().getShape() != shape ||
      getScratch().getType().getShape() != shape)
    return emitOpError("output and scratch must have the input's shape");
  if (shape.empty())
    return emitOpError("input must have rank >= 1");
  return success();
}

bool TransposeOp::swapsInnermost() {
  ArrayRef<int64_t> perm = getPerm();
  int64_t rank = perm.size();
  return rank >= 2 && perm[rank - 1] == rank - 2 && perm[rank - 2] == rank - 1;
}

LogicalResult DepthwiseConvOp::verify() {
  if (getWeights().empty())
    return emitOpError("needs at least one copy of the weight");
  auto weightType = cast<MemRefType>(getWeights().front().getType());
  for (Value copy : getWeights())
    if (copy.getType() != weightType)
      return emitOpError("copies of the weight must have one type, got ")
             << weightType << " and " << copy.getType();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> w = weightType.getShape();
  ArrayRef<int64_t> out = getOutput().getType().getShape();
  if (in.size() != 3 || out.size() != 3 || w.size() != 3)
    return emitOpError("input, weight and output must be H x W x C, "
                       "kh x kw x C and Ho x Wo x C");
  int64_t channels = in[2];
  if (w[2] != channels || out[2] != channels)
    return emitOpError("input, weight and output must have one channel "
                       "count, got ")
           << channels << ", " << w[2] << " and " << out[2];
  if (Value bias = getBias()) {
    ArrayRef<int64_t> b = cast<MemRefType>(bias.getType()).getShape();
    if (b.size() != 1 || b[0] != channels)
      return emitOpError("bias must hold ") << channels << " values";
  }
  Type element = getInput().getType().getElementType();
  if (!element.isF32())
    return emitOpError("runs on f32, got ") << element;
  SmallVector<Value> typed{getWeights().front(), getOutput()};
  if (getBias())
    typed.push_back(getBias());
  for (Value v : typed)
    if (cast<MemRefType>(v.getType()).getElementType() != element)
      return emitOpError("input, weight, bias and output must have one "
                         "element type");
  std::string mismatch = hetc::depthwise::windowMismatch(
      in.take_front(2), out.take_front(2), w.take_front(2), getStrides(),
      getPads(), getDilations());
  if (!mismatch.empty())
    return emitOpError(mismatch);
  return success();
}

/// Whether `v` holds `elements` f32 values; an error of `op` naming `what`
/// if not.
static LogicalResult verifyF32Buffer(Operation *op, Value v, int64_t elements,
                                     StringRef what) {
  auto type = cast<MemRefType>(v.getType());
  if (!type.getElementType().isF32() || type.getNumElements() != elements)
    return op->emitOpError(what)
           << " must hold " << elements << " f32 values, got " << type;
  return success();
}

/// The map and window of a channels-first convolution of the kernel plan
/// (`input_shape`, `kernel`, ...): the output's spatial extents in `out`.
static LogicalResult verifyWindowMap(Operation *op, ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> pads,
                                     ArrayRef<int64_t> dilations,
                                     std::vector<int64_t> &out) {
  if (shape.size() != kernel.size() + 2)
    return op->emitOpError("input_shape must be N x C x the kernel's ")
           << kernel.size() << " spatial extents, got " << shape.size()
           << " extents";
  for (int64_t extent : shape)
    if (extent < 0)
      return op->emitOpError("input_shape extents must not be negative");
  std::string mismatch = hetc::depthwise::windowExtents(
      shape.drop_front(2), kernel, strides, pads, dilations, out);
  if (!mismatch.empty())
    return op->emitOpError(mismatch);
  return success();
}

LogicalResult PlanDepthwiseConvOp::verify() {
  ArrayRef<int64_t> shape = getInputShape(), kernel = getKernel();
  std::vector<int64_t> out;
  if (failed(verifyWindowMap(getOperation(), shape, kernel, getStrides(),
                             getPads(), getDilations(), out)))
    return failure();
  // Counts of attribute values, computed without overflow.
  int64_t channels = shape[1], inputs = 1, outputs = 1, taps = 1;
  bool overflow = llvm::MulOverflow(shape[0], channels, outputs);
  for (int64_t extent : shape)
    overflow |= llvm::MulOverflow(inputs, extent, inputs);
  for (int64_t extent : out)
    overflow |= llvm::MulOverflow(outputs, extent, outputs);
  for (int64_t extent : kernel)
    overflow |= llvm::MulOverflow(taps, extent, taps);
  if (overflow)
    return emitOpError("input_shape and kernel overflow 64 bits");
  auto f32Buffer = [&](Value v, int64_t elements, StringRef what) {
    return verifyF32Buffer(getOperation(), v, elements, what);
  };
  if (failed(f32Buffer(getInput(), inputs, "input")) ||
      failed(f32Buffer(getOutput(), outputs, "output")))
    return failure();
  if (int64_t(getTaps().size()) != taps)
    return emitOpError("needs a column per kernel element (")
           << taps << "), got " << getTaps().size();
  for (Value tap : getTaps())
    if (failed(f32Buffer(tap, channels, "each column")))
      return failure();
  if (Value bias = getBias())
    if (failed(f32Buffer(bias, channels, "bias")))
      return failure();
  return success();
}

LogicalResult PlanConvOp::verify() {
  ArrayRef<int64_t> shape = getInputShape(), kernel = getKernel();
  std::vector<int64_t> out;
  if (failed(verifyWindowMap(getOperation(), shape, kernel, getStrides(),
                             getPads(), getDilations(), out)))
    return failure();
  int64_t groups = int64_t(getWeights().size()), channels = shape[1];
  if (groups == 0 || channels % groups != 0)
    return emitOpError("needs a weight buffer per group, and the groups (")
           << groups << ") must divide the " << channels << " input channels";
  auto first = cast<MemRefType>(getWeights().front().getType());
  if (first.getRank() != 2)
    return emitOpError("each group's weights must be rows, got ") << first;
  // Counts of attribute values, computed without overflow.
  int64_t rows = first.getDimSize(0), taps = 1, inputs = 1, outputs = 0;
  bool overflow = llvm::MulOverflow(rows, groups, outputs) ||
                  llvm::MulOverflow(outputs, shape[0], outputs);
  for (int64_t extent : shape)
    overflow |= llvm::MulOverflow(inputs, extent, inputs);
  for (int64_t extent : out)
    overflow |= llvm::MulOverflow(outputs, extent, outputs);
  for (int64_t extent : kernel)
    overflow |= llvm::MulOverflow(taps, extent, taps);
  int64_t row = 0;
  overflow |= llvm::MulOverflow(channels / groups, taps, row);
  if (overflow)
    return emitOpError("input_shape, kernel and weights overflow 64 bits");
  int64_t width = first.getDimSize(1);
  if (width != row && width != row + 1)
    return emitOpError("each weight row must hold the group's ")
           << channels / groups << " channels x " << taps
           << " kernel elements (" << row << " values, and the bias after "
           << "them), got " << width;
  for (Value weight : getWeights())
    if (weight.getType() != first)
      return emitOpError("the groups' weights must be alike, got ")
             << first << " and " << weight.getType();
  if (!first.getElementType().isF32())
    return emitOpError("the weights must be f32, got ") << first;
  if (failed(verifyF32Buffer(getOperation(), getInput(), inputs, "input")) ||
      failed(verifyF32Buffer(getOperation(), getOutput(), outputs, "output")))
    return failure();
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPerm();
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getOutput().getType().getShape();
  int64_t rank = in.size();
  if (int64_t(perm.size()) != rank || int64_t(out.size()) != rank)
    return emitOpError("perm, input and output must have one rank");
  SmallVector<bool> seen(rank, false);
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= rank || seen[p])
      return emitOpError("perm is not a permutation of [0, ") << rank << ")";
    seen[p] = true;
    if (out[i] != in[p])
      return emitOpError("output dimension ")
             << i << " is " << out[i] << ", expected " << in[p];
  }
  bool keepsRows = rank == 0 || perm[rank - 1] == rank - 1;
  if (!keepsRows && !swapsInnermost())
    return emitOpError("perm must keep the innermost dimension last or swap "
                       "the two innermost dimensions");
  if (swapsInnermost() && !getIdentity())
    return emitOpError("a matrix transpose needs an identity operand");
  if (Value identity = getIdentity()) {
    ArrayRef<int64_t> eye = cast<MemRefType>(identity.getType()).getShape();
    if (eye.size() != 2 || eye[0] != eye[1])
      return emitOpError("identity must be a square matrix");
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getOutput().getType().getShape();
  if (in.empty() || out.size() != in.size() ||
      in.drop_back() != out.drop_back() || out.back() != 1)
    return emitOpError("output must be the input's shape with an innermost "
                       "dimension of 1");
  return success();
}

int64_t GatherOp::rowCount() {
  MemRefType out = getOutput().getType();
  int64_t cols = out.getRank() ? out.getShape().back() : 1;
  return cols ? int64_t(getIndices().size()) / cols : 0;
}

/// Checks a row lookup's or row scatter's buffers: a table of rank 2 or
/// more, integer indices, and `rows` (the output or the updates, named
/// `what`) of the table's type and of the indices' shape followed by a
/// row's.
static LogicalResult verifyRowAccess(Operation *op, MemRefType table,
                                     MemRefType idx, MemRefType rows,
                                     StringRef what) {
  if (table.getRank() < 2)
    return op->emitOpError("table must have rank 2 or more, got ") << table;
  if (table.getElementType() != rows.getElementType())
    return op->emitOpError("table element type ")
           << table.getElementType() << " differs from the " << what
           << (what.ends_with("s") ? "' " : "'s ") << rows.getElementType();
  if (!idx.getElementType().isInteger(64) &&
      !idx.getElementType().isInteger(32))
    return op->emitOpError("indices must be i32 or i64, got ")
           << idx.getElementType();
  SmallVector<int64_t> expected(idx.getShape());
  llvm::append_range(expected, table.getShape().drop_front());
  if (ArrayRef<int64_t>(expected) != rows.getShape())
    return op->emitOpError()
           << what << " shape must be the indices' shape followed by the "
           << "table's row shape";
  return success();
}

LogicalResult GatherRowsOp::verify() {
  return verifyRowAccess(*this, getTable().getType(), getIndices().getType(),
                         getOutput().getType(), "output");
}

LogicalResult ScatterRowsOp::verify() {
  return verifyRowAccess(*this, getTable().getType(), getIndices().getType(),
                         getUpdates().getType(), "updates");
}

/// The checks htile.gather and htile.plan_gather share: the inputs'
/// element type is the output's, and each index names an input element
/// (or is -1). Sets `total` to the inputs' elements.
static LogicalResult verifyGatherInputs(Operation *op, ValueRange inputs,
                                        MemRefType out,
                                        ArrayRef<int64_t> indices,
                                        int64_t &total) {
  if (inputs.empty())
    return op->emitOpError("needs at least one input");
  total = 0;
  for (Value input : inputs) {
    auto type = cast<MemRefType>(input.getType());
    if (type.getElementType() != out.getElementType())
      return op->emitOpError("input element type ")
             << type.getElementType() << " differs from the output's "
             << out.getElementType();
    total += type.getNumElements();
  }
  if (int64_t(indices.size()) > GatherOp::kMaxElements)
    return op->emitOpError("has ")
           << indices.size() << " indices; a gather handles at most "
           << GatherOp::kMaxElements
           << " (split the move into bands of rows with first_row)";
  for (auto [i, index] : llvm::enumerate(indices))
    if (index < -1 || index >= total)
      return op->emitOpError("index ")
             << index << " at output element " << i
             << " is outside the inputs' " << total << " elements (or -1)";
  return success();
}

LogicalResult PlanGatherOp::verify() {
  int64_t total = 0;
  if (failed(verifyGatherInputs(getOperation(), getInputs(),
                                getOutput().getType(), getIndices(), total)))
    return failure();
  if (int64_t(getIndices().size()) != getOutput().getType().getNumElements())
    return emitOpError("has ")
           << getIndices().size() << " indices, but the output has "
           << getOutput().getType().getNumElements() << " elements";
  return success();
}

LogicalResult GatherOp::verify() {
  MemRefType out = getOutput().getType();
  ArrayRef<int64_t> indices = getIndices();
  int64_t total = 0;
  if (failed(
          verifyGatherInputs(getOperation(), getInputs(), out, indices, total)))
    return failure();
  if (std::optional<uint64_t> first = getFirstRow()) {
    int64_t cols = out.getRank() ? out.getShape().back() : 1;
    int64_t rows = cols ? out.getNumElements() / cols : 0;
    if (cols == 0 || int64_t(indices.size()) % cols != 0)
      return emitOpError("has ")
             << indices.size() << " indices, not whole rows of " << cols
             << " elements";
    int64_t count = int64_t(indices.size()) / cols;
    if (int64_t(*first) > rows || count > rows - int64_t(*first))
      return emitOpError("fills rows ")
             << *first << " to " << int64_t(*first) + count - 1
             << " of an output of " << rows << " rows";
  } else if (int64_t(indices.size()) != out.getNumElements()) {
    return emitOpError("has ")
           << indices.size() << " indices, but the output has "
           << out.getNumElements() << " elements";
  }
  return success();
}

Value hetc::htile::planOutput(Operation *op) {
  if (auto conv = dyn_cast<PlanConvOp>(op))
    return conv.getOutput();
  if (auto conv = dyn_cast<PlanDepthwiseConvOp>(op))
    return conv.getOutput();
  if (auto gather = dyn_cast<PlanGatherOp>(op))
    return gather.getOutput();
  return {};
}

bool hetc::htile::isPlanOnlyBuffer(Value buffer) {
  if (buffer.use_empty())
    return false;
  for (Operation *user : buffer.getUsers()) {
    if (isPlanOnly(user))
      continue;
    auto view = dyn_cast<ViewOp>(user);
    if (!view || !isPlanOnlyBuffer(view.getResult()))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

Value ViewOp::getViewSource() { return getSource(); }

// The buffers each kernel writes (DestinationStyleOpInterface).
std::optional<hetc::hisa::VUnaryKind>
hetc::htile::activationKind(Activation activation) {
  switch (activation) {
  case Activation::none:
    return std::nullopt;
  case Activation::relu:
    return hisa::VUnaryKind::relu;
  case Activation::sigmoid:
    return hisa::VUnaryKind::sigmoid;
  case Activation::tanh:
    return hisa::VUnaryKind::tanh;
  }
  return std::nullopt;
}

std::optional<std::pair<hetc::hisa::VCompareKind, bool>>
hetc::htile::comparisonOf(BinaryKind kind) {
  switch (kind) {
  case BinaryKind::equal:
    return std::make_pair(hisa::VCompareKind::eq, false);
  case BinaryKind::less:
    return std::make_pair(hisa::VCompareKind::lt, false);
  case BinaryKind::less_equal:
    return std::make_pair(hisa::VCompareKind::le, false);
  case BinaryKind::greater:
    return std::make_pair(hisa::VCompareKind::lt, true);
  case BinaryKind::greater_equal:
    return std::make_pair(hisa::VCompareKind::le, true);
  default:
    return std::nullopt;
  }
}

MutableOperandRange MatMulOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange BinaryOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange UnaryOp::getDpsInitsMutable() { return getOutputMutable(); }
MutableOperandRange CastOp::getDpsInitsMutable() { return getOutputMutable(); }
MutableOperandRange SelectOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange SoftmaxOp::getDpsInitsMutable() {
  // The output and the scratch buffer, adjacent operands.
  return MutableOperandRange(getOperation(),
                             getOutputMutable().getOperandNumber(), 2);
}
MutableOperandRange ReduceOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange DepthwiseConvOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange TransposeOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange GatherOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange GatherRowsOp::getDpsInitsMutable() {
  return getOutputMutable();
}
MutableOperandRange ScatterRowsOp::getDpsInitsMutable() {
  return getTableMutable();
}
