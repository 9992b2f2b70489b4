//===- AxisProductTest.cpp - A constant linear map along one dimension ---===//
//
// multiplyAlongAxis moves the dimension last, multiplies by the constant
// [in, out] matrix and moves it back. Each axis of a tensor whose
// dimensions all differ must come back with only that dimension resized,
// the two transposes must undo each other, the weights must be the matrix
// as given, and a bias is added only when one of its entries is non-zero.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/AxisProduct.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace hetc;

namespace {

class AxisProductTest : public ::testing::Test {
protected:
  AxisProductTest() : rewriter(&context) {
    context.loadDialect<hgraph::HGraphDialect, func::FuncDialect>();
    loc = UnknownLoc::get(&context);
    module = ModuleOp::create(loc);
  }

  /// A function taking a [2, 3, 4] f32 tensor whose body is
  /// multiplyAlongAxis over `axis`, returned.
  func::FuncOp build(int64_t axis, ArrayRef<double> matrix, int64_t out,
                     ArrayRef<double> bias = {}) {
    auto input = RankedTensorType::get({2, 3, 4}, rewriter.getF32Type());
    rewriter.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(rewriter, loc, "f",
                                   rewriter.getFunctionType({input}, {}));
    Block *body = fn.addEntryBlock();
    rewriter.setInsertionPointToEnd(body);
    result = multiplyAlongAxis(rewriter, loc, body->getArgument(0), axis,
                               matrix, out, bias);
    func::ReturnOp::create(rewriter, loc, result);
    fn.setType(rewriter.getFunctionType({input}, {result.getType()}));
    return fn;
  }

  template <typename OpT> SmallVector<OpT> opsOf(func::FuncOp fn) {
    SmallVector<OpT> found;
    fn.walk([&](OpT op) { found.push_back(op); });
    return found;
  }

  MLIRContext context;
  PatternRewriter rewriter;
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
  Value result;
};

TEST_F(AxisProductTest, EachAxisComesBackResizedInPlace) {
  const int64_t sizes[] = {2, 3, 4};
  for (int64_t axis = 0; axis < 3; ++axis) {
    module = ModuleOp::create(loc);
    int64_t in = sizes[axis], out = 5;
    std::vector<double> matrix(in * out, 0.5);
    func::FuncOp fn = build(axis, matrix, out);
    ASSERT_TRUE(succeeded(verify(*module))) << "axis " << axis;

    SmallVector<int64_t> expected = {2, 3, 4};
    expected[axis] = out;
    EXPECT_EQ(cast<RankedTensorType>(result.getType()).getShape(),
              ArrayRef<int64_t>(expected))
        << "axis " << axis;

    // The innermost axis needs no move; any other is moved there and back,
    // and the two permutations compose to the identity.
    SmallVector<hgraph::TransposeOp> transposes =
        opsOf<hgraph::TransposeOp>(fn);
    if (axis == 2) {
      EXPECT_TRUE(transposes.empty());
      continue;
    }
    ASSERT_EQ(transposes.size(), 2u) << "axis " << axis;
    ArrayRef<int64_t> there = transposes[0].getPerm();
    ArrayRef<int64_t> back = transposes[1].getPerm();
    EXPECT_EQ(there.back(), axis);
    for (int64_t k = 0; k < 3; ++k)
      EXPECT_EQ(there[back[k]], k) << "axis " << axis << ", dimension " << k;
  }
}

TEST_F(AxisProductTest, WeightsAreTheMatrixAndZeroBiasAddsNothing) {
  // Along the middle axis (in = 3) to out = 2: the matmul runs on
  // [2 * 4, 3] rows against the [3, 2] matrix, row-major as given.
  std::vector<double> matrix = {1, 2, 3, 4, 5, 6};
  func::FuncOp fn = build(1, matrix, 2, {0.0, 0.0});
  ASSERT_TRUE(succeeded(verify(*module)));
  SmallVector<hgraph::MatMulOp> matmuls = opsOf<hgraph::MatMulOp>(fn);
  ASSERT_EQ(matmuls.size(), 1u);
  EXPECT_EQ(cast<RankedTensorType>(matmuls[0].getType()).getShape(),
            ArrayRef<int64_t>({8, 2}));
  auto weights = matmuls[0]->getOperand(1).getDefiningOp<hgraph::ConstantOp>();
  ASSERT_TRUE(weights);
  auto values = cast<DenseElementsAttr>(weights.getValue());
  EXPECT_EQ(values.getType().getShape(), ArrayRef<int64_t>({3, 2}));
  std::vector<float> got(values.getValues<float>().begin(),
                         values.getValues<float>().end());
  EXPECT_EQ(got, std::vector<float>({1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(opsOf<hgraph::AddOp>(fn).empty());
}

TEST_F(AxisProductTest, NonZeroBiasIsAddedPerOutput) {
  func::FuncOp fn =
      build(2, std::vector<double>(4 * 3, 1.0), 3, {0.0, 0.25, 0.0});
  ASSERT_TRUE(succeeded(verify(*module)));
  SmallVector<hgraph::AddOp> adds = opsOf<hgraph::AddOp>(fn);
  ASSERT_EQ(adds.size(), 1u);
  auto bias = adds[0]->getOperand(1).getDefiningOp<hgraph::ConstantOp>();
  ASSERT_TRUE(bias);
  auto values = cast<DenseElementsAttr>(bias.getValue());
  std::vector<float> got(values.getValues<float>().begin(),
                         values.getValues<float>().end());
  EXPECT_EQ(got, std::vector<float>({0.0f, 0.25f, 0.0f}));
}

} // namespace
