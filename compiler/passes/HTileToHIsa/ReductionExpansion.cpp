//===- ReductionExpansion.cpp - Reduction htile kernels to hisa
//-------------===//
//
// htile.reduce (a reduction per vector, combined across a row's vectors)
// and htile.softmax (maximum, exponentials and their sum per row).
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HTileToHIsa/Expansion.h"

using namespace mlir;
using namespace hetc;
using namespace hetc::expansion;

namespace {

class ReductionExpander : public InstructionBuilder {
public:
  using InstructionBuilder::InstructionBuilder;
  LogicalResult expandReduce(htile::ReduceOp op);
  LogicalResult expandSoftmax(htile::SoftmaxOp op);

private:
  /// Softmax over rows of several vectors.
  LogicalResult expandWideSoftmax(Location loc, const Tensor &in,
                                  const Tensor &out, const Tensor &scratch,
                                  Type t);
};

} // namespace

LogicalResult ReductionExpander::expandSoftmax(htile::SoftmaxOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput()),
         scratch = tensor(op.getScratch());
  int32_t n = int32_t(in.layout.cols);
  Type t = elementOf(op.getInput());
  if (in.layout.vectorsPerRow > 1)
    return expandWideSoftmax(loc, in, out, scratch, t);
  for (int64_t r = 0; r < in.layout.rows; ++r) {
    // e = exp(x - max(x)), kept in scratch while its sum is formed.
    Value max =
        reduce(loc, hisa::VReduceKind::max, read(loc, in.at(r, 0), t), n, t);
    Value shifted = binary(loc, hisa::VBinaryKind::sub,
                           read(loc, in.at(r, 0), t), max, n, t);
    write(loc, unary(loc, hisa::VUnaryKind::exp, shifted, n, t),
          scratch.at(r, 0), t);
    Value sum = reduce(loc, hisa::VReduceKind::sum,
                       read(loc, scratch.at(r, 0), t), n, t);
    write(loc,
          binary(loc, hisa::VBinaryKind::div, read(loc, scratch.at(r, 0), t),
                 sum, n, t),
          out.at(r, 0), t);
  }
  return success();
}

LogicalResult ReductionExpander::expandWideSoftmax(Location loc,
                                                   const Tensor &in,
                                                   const Tensor &out,
                                                   const Tensor &scratch,
                                                   Type t) {
  int64_t vectors = in.layout.vectorsPerRow, cols = in.layout.cols;
  int32_t all = int32_t(lanes);
  // The row's maximum and sum are combined across its vectors, each
  // reduction broadcast to every lane. Each is parked in the output row
  // (vectors 0 and 1, which are written last) so that every later use
  // reads it on its own: one stream value read by many instructions would
  // force them into one cycle.
  for (int64_t r = 0; r < in.layout.rows; ++r) {
    Value max = nullptr;
    for (int64_t j = 0; j < vectors; ++j) {
      Value part = reduce(loc, hisa::VReduceKind::max,
                          read(loc, in.at(r, j), t), lanesOf(cols, j), t);
      max = max ? binary(loc, hisa::VBinaryKind::max, max, part, all, t) : part;
    }
    write(loc, max, out.at(r, 0), t);
    Value sum = nullptr;
    for (int64_t j = 0; j < vectors; ++j) {
      int32_t n = lanesOf(cols, j);
      Value x = read(loc, in.at(r, j), t);
      Value shifted = binary(loc, hisa::VBinaryKind::sub, x,
                             read(loc, out.at(r, 0), t), n, t);
      write(loc, unary(loc, hisa::VUnaryKind::exp, shifted, n, t),
            scratch.at(r, j), t);
      Value part = reduce(loc, hisa::VReduceKind::sum,
                          read(loc, scratch.at(r, j), t), n, t);
      sum = sum ? binary(loc, hisa::VBinaryKind::add, sum, part, all, t) : part;
    }
    write(loc, sum, out.at(r, 1), t);
    // Vector 1 holds the sum, so it is divided last; vector 0 (the maximum,
    // no longer needed) just before it.
    std::vector<int64_t> order;
    for (int64_t j = vectors - 1; j >= 2; --j)
      order.push_back(j);
    order.push_back(0);
    order.push_back(1);
    for (int64_t j : order) {
      Value e = read(loc, scratch.at(r, j), t);
      write(loc,
            binary(loc, hisa::VBinaryKind::div, e, read(loc, out.at(r, 1), t),
                   lanesOf(cols, j), t),
            out.at(r, j), t);
    }
  }
  return success();
}

LogicalResult ReductionExpander::expandReduce(htile::ReduceOp op) {
  Location loc = op.getLoc();
  Tensor in = tensor(op.getInput()), out = tensor(op.getOutput());
  auto kind = op.getKind();
  Type type = elementOf(op.getInput());
  hisa::VBinaryKind combine =
      kind == hisa::VReduceKind::sum   ? hisa::VBinaryKind::add
      : kind == hisa::VReduceKind::max ? hisa::VBinaryKind::max
                                       : hisa::VBinaryKind::min;
  for (int64_t r = 0; r < in.layout.rows; ++r)
    for (int64_t j = 0; j < in.layout.vectorsPerRow; ++j) {
      Value part = reduce(loc, kind, read(loc, in.at(r, j), type),
                          lanesOf(in.layout.cols, j), type);
      // The reduction fills every lane; combining (or, for the first
      // vector, max with itself) keeps lane 0 and zeroes the rest.
      Value other = j ? read(loc, out.at(r, 0), type) : part;
      write(loc,
            binary(loc, j ? combine : hisa::VBinaryKind::max, part, other, 1,
                   type),
            out.at(r, 0), type);
    }
  return success();
}

void expansion::populateReductionExpansions(RewritePatternSet &patterns,
                                            ExpansionState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ExpandWith<htile::ReduceOp, ReductionExpander,
                          &ReductionExpander::expandReduce>,
               ExpandWith<htile::SoftmaxOp, ReductionExpander,
                          &ReductionExpander::expandSoftmax>>(context, state);
}
