//===- MatrixExpansion.cpp - Matrix htile kernels to hisa
//-------------------===//
//
// htile.matmul (weight tiles installed row by row in a plane, partial sums
// over K tiles accumulated through the output) and htile.transpose (whole
// rows moved, or tiles transposed on a plane by multiplying unit vectors).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

class MatrixExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  LogicalResult expandMatMul(htile::MatMulOp op);
  LogicalResult expandTranspose(htile::TransposeOp op);
};

} // namespace

LogicalResult MatrixExpander::expandMatMul(htile::MatMulOp op) {
  if (std::optional<ArrayRef<int64_t>> tile = op.getTile())
    if ((*tile)[1] != int64_t(lanes) || (*tile)[2] != int64_t(lanes) ||
        (*tile)[0] != 1)
      return op.emitError("tile [")
             << (*tile)[0] << ", " << (*tile)[1] << ", " << (*tile)[2]
             << "] does not match chip '" << chip.name() << "' (expected [1, "
             << lanes << ", " << lanes << "])";
  Location loc = op.getLoc();
  Tensor x = tensor(op.getInput()), w = tensor(op.getWeight()),
         out = tensor(op.getOutput());
  std::optional<Tensor> bias, scale;
  if (op.getBias())
    bias = tensor(op.getBias());
  if (op.getScale())
    scale = tensor(op.getScale());
  int64_t k = x.layout.cols, kTiles = x.layout.vectorsPerRow;
  // Products of f16 and bf16 inputs accumulate in f32 and of i8 and ui8 in
  // i32 on the plane; partial sums over K tiles stay in that type in the
  // output buffer, which is therefore of that type when K spans several
  // tiles (SRAM holds each type at its width; the lowering gives a
  // narrower output an f32 buffer and a cast), and the last K tile
  // converts the result to the output's type.
  Type type = elementOf(op.getInput()), outType = elementOf(op.getOutput());
  Type weightType = elementOf(op.getWeight());
  // An i8 weight of a float matmul is converted to the input's type on
  // its way to the plane (exact: f16 and bf16 hold every int8 value).
  bool convertWeights = weightType != type && hisa::isFloatLane(type);
  Type acc = hisa::isFloatLane(type) ? f32() : Type(b.getI32Type());
  std::optional<hisa::VUnaryKind> activation;
  switch (op.getActivation()) {
  case htile::Activation::none:
    break;
  case htile::Activation::relu:
    activation = hisa::VUnaryKind::relu;
    break;
  case htile::Activation::sigmoid:
    activation = hisa::VUnaryKind::sigmoid;
    break;
  case htile::Activation::tanh:
    activation = hisa::VUnaryKind::tanh;
    break;
  }

  for (int64_t jn = 0; jn < out.layout.vectorsPerRow; ++jn) {
    int32_t nLanes = lanesOf(out.layout.cols, jn);
    for (int64_t jk = 0; jk < kTiles; ++jk) {
      uint32_t plane = takePlane();
      // Install the k x n weight tile, one row per instruction. Rows past
      // K keep older weights; they meet zero padding lanes of the input.
      int64_t kRows = std::min<int64_t>(lanes, k - jk * lanes);
      for (int64_t i = 0; i < kRows; ++i) {
        Value row = read(loc, w.at(jk * lanes + i, jn), weightType);
        if (convertWeights)
          row = convert(loc, row, weightType, type, nLanes);
        hisa::LoadWeightsOp::create(
            b, loc, row, plane, hisa::WeightSlot::row, int32_t(i),
            dtype(convertWeights ? type : weightType), IntegerAttr());
      }
      bool last = jk == kTiles - 1;
      for (int64_t r = 0; r < x.layout.rows; ++r) {
        Value sum = hisa::MatMulOp::create(
            b, loc, vec(), read(loc, x.at(r, jk), type), plane, dtype(type),
            IntegerAttr(), hisa::StreamAttr());
        // Partial sums over K tiles accumulate through the output buffer.
        if (jk > 0)
          sum = binary(loc, hisa::VBinaryKind::add, sum,
                       read(loc, out.at(r, jn), acc), nLanes, acc);
        if (last && scale)
          sum = binary(loc, hisa::VBinaryKind::mul, sum,
                       read(loc, scale->at(0, jn), f32()), nLanes, acc);
        if (last && bias) {
          Type biasType = elementOf(op.getBias());
          Value row = read(loc, bias->at(0, jn), biasType);
          if (biasType != acc)
            row = convert(loc, row, biasType, acc, nLanes);
          sum = binary(loc, hisa::VBinaryKind::add, sum, row, nLanes, acc);
        }
        if (last && activation)
          sum = unary(loc, *activation, sum, nLanes, acc);
        if (last && outType != acc) {
          sum = convert(loc, sum, acc, outType, nLanes);
          write(loc, sum, out.at(r, jn), outType);
        } else {
          write(loc, sum, out.at(r, jn), acc);
        }
      }
    }
  }
  return success();
}

/// The input row that output row `row` of a dimension permutation reads,
/// for permutations of the leading dimensions (`shape` is the input's,
/// `perm` maps output dimensions to input ones, both without the
/// dimensions the rows are made of).
static int64_t permutedRow(int64_t row, ArrayRef<int64_t> inShape,
                           ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  SmallVector<int64_t> inIndex(rank, 0);
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t size = inShape[perm[d]];
    inIndex[perm[d]] = row % size;
    row /= size;
  }
  int64_t flat = 0;
  for (int64_t d = 0; d < rank; ++d)
    flat = flat * inShape[d] + inIndex[d];
  return flat;
}

LogicalResult MatrixExpander::expandTranspose(htile::TransposeOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = perm.size();
  Type type = elementOf(op.getInput());
  if (!op.swapsInnermost()) {
    // Whole rows move: each vector goes from SRAM to SRAM on a stream.
    ArrayRef<int64_t> lead = rank ? perm.drop_back() : perm;
    for (int64_t r = 0; r < out.layout.rows; ++r) {
      int64_t source = permutedRow(r, inShape.drop_back(), lead);
      for (int64_t j = 0; j < out.layout.vectorsPerRow; ++j)
        write(loc, read(loc, in.at(source, j), type), out.at(r, j), type);
    }
    return success();
  }
  // The plane's result is f32 (i32 for 8-bit integers): other types are
  // converted back, exactly, by a cast that also masks the lanes.
  Type acc = hisa::isFloatLane(type) ? f32() : Type(b.getI32Type());
  // Each matrix [m, k] becomes [k, m], a lanes x lanes tile at a time: the
  // tile's rows go in as weight columns, and multiplying unit vector e_c
  // reads out column c as a row. Columns past the tile's rows hold older
  // weights, so the result is masked to the valid lanes.
  Tensor eye = tensor(op.getIdentity());
  int64_t m = inShape[rank - 2], k = inShape[rank - 1];
  int64_t batches = m ? in.layout.rows / m : 0;
  ArrayRef<int64_t> lead = perm.drop_back(2);
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t source = permutedRow(batch, inShape.drop_back(2), lead);
    for (int64_t mi = 0; mi * lanes < m; ++mi)
      for (int64_t ki = 0; ki * lanes < k; ++ki) {
        uint32_t plane = takePlane();
        int64_t tileRows = std::min<int64_t>(lanes, m - mi * lanes);
        int64_t tileCols = std::min<int64_t>(lanes, k - ki * lanes);
        for (int64_t i = 0; i < tileRows; ++i)
          hisa::LoadWeightsOp::create(
              b, loc, read(loc, in.at(source * m + mi * lanes + i, ki), type),
              plane, hisa::WeightSlot::column, int32_t(i), dtype(type),
              IntegerAttr());
        for (int64_t c = 0; c < tileCols; ++c) {
          Value column = hisa::MatMulOp::create(
              b, loc, vec(), read(loc, eye.at(c, 0), type), plane, dtype(type),
              IntegerAttr(), hisa::StreamAttr());
          Value masked =
              type == acc ? binary(loc, hisa::VBinaryKind::max, column, column,
                                   int32_t(tileRows))
                          : convert(loc, column, acc, type, int32_t(tileRows));
          write(loc, masked, out.at(batch * k + ki * lanes + c, mi), type);
        }
      }
  }
  return success();
}

void expansion::populateMatrixExpansions(RewritePatternSet &patterns,
                                         ExpansionState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ExpandWith<htile::MatMulOp, MatrixExpander,
                          &MatrixExpander::expandMatMul>,
               ExpandWith<htile::TransposeOp, MatrixExpander,
                          &MatrixExpander::expandTranspose>>(context, state);
}
