//===- FrontendTest.cpp - ONNX tensors to attributes, and the rules ----===//
//
// tensorToAttr reads every way ONNX stores a tensor (raw little-endian
// bytes, the typed repeated fields, packed sub-byte types, external data
// through the importer's reader) and refuses what does not add up. The
// rule registry answers for each domain.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/frontend/OnnxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace mlir;
using namespace hetc::frontend;

namespace {

/// ONNX's INT4, newer than the protobuf schema Debian ships.
constexpr int kInt4 = 22;

class FrontendTest : public ::testing::Test {
protected:
  FrontendTest() { context.loadDialect<hetc::hgraph::HGraphDialect>(); }

  /// A tensor of `type` and `dims`.
  static onnx::TensorProto tensor(int type, std::vector<int64_t> dims) {
    onnx::TensorProto t;
    t.set_name("t");
    t.set_data_type(type);
    for (int64_t d : dims)
      t.add_dims(d);
    return t;
  }

  MLIRContext context;
};

TEST_F(FrontendTest, RawFloatsAreLittleEndian) {
  onnx::TensorProto t = tensor(onnx::TensorProto::FLOAT, {2, 2});
  float values[4] = {1.5f, -2.0f, 0.0f, 3.25f};
  t.set_raw_data(std::string(reinterpret_cast<char *>(values), sizeof values));
  std::string error;
  FailureOr<DenseElementsAttr> attr = tensorToAttr(t, &context, error);
  ASSERT_TRUE(succeeded(attr)) << error;
  EXPECT_EQ(attr->getType().getShape(), ArrayRef<int64_t>({2, 2}));
  std::vector<float> got(attr->getValues<float>().begin(),
                         attr->getValues<float>().end());
  EXPECT_EQ(got, std::vector<float>(values, values + 4));
}

TEST_F(FrontendTest, TypedFieldsOfEachKind) {
  std::string error;
  onnx::TensorProto f = tensor(onnx::TensorProto::FLOAT, {3});
  for (float v : {1.0f, 2.0f, 3.0f})
    f.add_float_data(v);
  FailureOr<DenseElementsAttr> floats = tensorToAttr(f, &context, error);
  ASSERT_TRUE(succeeded(floats)) << error;
  EXPECT_EQ(*(floats->getValues<float>().begin() + 2), 3.0f);

  onnx::TensorProto i = tensor(onnx::TensorProto::INT64, {2});
  i.add_int64_data(-7);
  i.add_int64_data(int64_t(1) << 40);
  FailureOr<DenseElementsAttr> ints = tensorToAttr(i, &context, error);
  ASSERT_TRUE(succeeded(ints)) << error;
  EXPECT_EQ(ints->getValues<int64_t>()[0], -7);
  EXPECT_EQ(ints->getValues<int64_t>()[1], int64_t(1) << 40);

  // float16 keeps its bit patterns in int32_data: 0x3C00 is 1.0.
  onnx::TensorProto h = tensor(onnx::TensorProto::FLOAT16, {1});
  h.add_int32_data(0x3C00);
  FailureOr<DenseElementsAttr> halves = tensorToAttr(h, &context, error);
  ASSERT_TRUE(succeeded(halves)) << error;
  EXPECT_TRUE(halves->getElementType().isF16());
  EXPECT_EQ((*halves->getValues<APFloat>().begin()).convertToFloat(), 1.0f);

  // Booleans take one byte each in raw data; any non-zero byte is true.
  onnx::TensorProto b = tensor(onnx::TensorProto::BOOL, {3});
  b.set_raw_data(std::string("\x00\x01\x07", 3));
  FailureOr<DenseElementsAttr> bools = tensorToAttr(b, &context, error);
  ASSERT_TRUE(succeeded(bools)) << error;
  std::vector<bool> got(bools->getValues<bool>().begin(),
                        bools->getValues<bool>().end());
  EXPECT_EQ(got, (std::vector<bool>{false, true, true}));
}

TEST_F(FrontendTest, PackedFourBitIntegers) {
  // INT4 packs two elements a byte, low nibble first: 0x9F is 15 (-1 as
  // int4) then 9 (-7).
  onnx::TensorProto t = tensor(kInt4, {3});
  t.set_raw_data(std::string("\x9F\x02", 2));
  std::string error;
  FailureOr<DenseElementsAttr> attr = tensorToAttr(t, &context, error);
  ASSERT_TRUE(succeeded(attr)) << error;
  std::vector<int64_t> got;
  for (const APInt &v : attr->getValues<APInt>())
    got.push_back(v.getSExtValue());
  EXPECT_EQ(got, (std::vector<int64_t>{-1, -7, 2}));
  // Three 4-bit elements take two bytes, not three.
  t.set_raw_data(std::string("\x9F\x02\x00", 3));
  EXPECT_TRUE(failed(tensorToAttr(t, &context, error)));
  EXPECT_EQ(error, "has 3 bytes of data, expected 2");
}

TEST_F(FrontendTest, RefusesWhatDoesNotAddUp) {
  std::string error;
  onnx::TensorProto raw = tensor(onnx::TensorProto::FLOAT, {3});
  raw.set_raw_data(std::string(8, '\0'));
  EXPECT_TRUE(failed(tensorToAttr(raw, &context, error)));
  EXPECT_EQ(error, "has 8 bytes of raw data, expected 12");

  onnx::TensorProto typed = tensor(onnx::TensorProto::INT32, {2, 2});
  typed.add_int32_data(1);
  EXPECT_TRUE(failed(tensorToAttr(typed, &context, error)));
  EXPECT_EQ(error, "has 1 values, expected 4");

  onnx::TensorProto negative = tensor(onnx::TensorProto::FLOAT, {2, -1});
  EXPECT_TRUE(failed(tensorToAttr(negative, &context, error)));
  EXPECT_EQ(error, "has a negative or unknown dimension");

  // Dimensions whose product passes 2^64 are refused before anything is
  // allocated, whatever the data holds.
  onnx::TensorProto huge =
      tensor(onnx::TensorProto::FLOAT, {int64_t(1) << 32, int64_t(1) << 32});
  huge.set_raw_data(std::string(16, '\0'));
  EXPECT_TRUE(failed(tensorToAttr(huge, &context, error)));
  EXPECT_NE(error.find("beyond what the chip can hold"), std::string::npos)
      << error;

  // The chip's limit, passed by the importer.
  onnx::TensorProto big = tensor(onnx::TensorProto::FLOAT, {10});
  big.set_raw_data(std::string(40, '\0'));
  EXPECT_TRUE(failed(tensorToAttr(big, &context, error, nullptr, 8)));
  EXPECT_EQ(error.rfind("has more than 8 elements", 0), 0u) << error;

  onnx::TensorProto strings = tensor(onnx::TensorProto::STRING, {1});
  strings.add_string_data("a");
  EXPECT_TRUE(failed(tensorToAttr(strings, &context, error)));
  EXPECT_EQ(error, "has element type STRING, which hetc does not support");
}

TEST_F(FrontendTest, ExternalDataComesThroughTheReader) {
  onnx::TensorProto t = tensor(onnx::TensorProto::INT32, {2});
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  std::string error;
  // Without a reader, external data is refused.
  EXPECT_TRUE(failed(tensorToAttr(t, &context, error)));
  EXPECT_EQ(error,
            "keeps its data in an external file, which is not supported here");
  int calls = 0;
  auto reader = [&](const onnx::TensorProto &, std::string &bytes,
                    std::string &) {
    ++calls;
    int32_t values[2] = {5, -6};
    bytes.assign(reinterpret_cast<char *>(values), sizeof values);
    return true;
  };
  FailureOr<DenseElementsAttr> attr = tensorToAttr(t, &context, error, reader);
  ASSERT_TRUE(succeeded(attr)) << error;
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(attr->getValues<int32_t>()[1], -6);
  // A reader's failure is the tensor's.
  auto failing = [](const onnx::TensorProto &, std::string &,
                    std::string &why) {
    why = "cannot read it";
    return false;
  };
  EXPECT_TRUE(failed(tensorToAttr(t, &context, error, failing)));
  EXPECT_EQ(error, "cannot read it");
}

TEST_F(FrontendTest, RuleRegistryByDomain) {
  for (const char *op : {"Add", "MatMul", "Conv", "Gather", "Softmax",
                         "LayerNormalization", "Attention", "ScatterND",
                         "LSTM", "Reshape"})
    EXPECT_NE(lookupImportRule(op), nullptr) << op;
  EXPECT_EQ(lookupImportRule("NoSuchOp"), nullptr);
  EXPECT_EQ(lookupImportRule("add"), nullptr) << "op types are case-sensitive";
  // The default domain's two spellings; another domain's rules only there.
  EXPECT_EQ(lookupImportRule("", "Add"), lookupImportRule("Add"));
  EXPECT_EQ(lookupImportRule("ai.onnx", "Add"), lookupImportRule("Add"));
  EXPECT_EQ(lookupImportRule("com.example", "Add"), nullptr);
  EXPECT_NE(lookupTrainingRule("Adagrad"), nullptr);
  EXPECT_EQ(lookupImportRule("ai.onnx.preview.training", "Momentum"),
            lookupTrainingRule("Momentum"));
  EXPECT_EQ(lookupImportRule("Adagrad"), nullptr);
  EXPECT_EQ(lookupTrainingRule("Add"), nullptr);
  EXPECT_NE(lookupImportRule("ai.onnx.preview", "FlexAttention"), nullptr);
  EXPECT_EQ(lookupImportRule("FlexAttention"), nullptr);
}

/// A function of [2] i64 constants: split(c)#1, (the value wanted,
/// which no folder resolves), and arg + 1 (not constant).
struct ConstantSliceFixture {
  explicit ConstantSliceFixture(MLIRContext &context)
      : module(ModuleOp::create(UnknownLoc::get(&context))) {
    OpBuilder b(&context);
    Location loc = b.getUnknownLoc();
    auto i64 = RankedTensorType::get({2}, b.getI64Type());
    auto one = RankedTensorType::get({1}, b.getI64Type());
    b.setInsertionPointToEnd(module->getBody());
    auto func =
        func::FuncOp::create(b, loc, "main", b.getFunctionType({i64}, {}));
    b.setInsertionPointToEnd(func.addEntryBlock());
    Value c = hetc::hgraph::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i64, ArrayRef<int64_t>({7, 9})));
    auto split = hetc::hgraph::SplitOp::create(b, loc, TypeRange{one, one}, c,
                                               b.getI64IntegerAttr(0));
    piece = split.getResult(1);
    runtime = hetc::hgraph::AddOp::create(b, loc, i64, func.getArgument(0), c);
  }
  OwningOpRef<ModuleOp> module;
  Value piece, runtime;
};

TEST_F(FrontendTest, ConstantsNoFolderResolvesAreEvaluatedOnce) {
  context.loadDialect<mlir::func::FuncDialect>();
  ConstantSliceFixture ir(context);
  int calls = 0;
  ConstantEvaluation evaluation([&](ModuleOp m, std::string &) {
    ++calls;
    // The slice: the constant and the split, and nothing of the argument.
    auto main = m.lookupSymbol<func::FuncOp>("main");
    EXPECT_EQ(main.getNumArguments(), 0u);
    EXPECT_EQ(main.getFunctionBody().front().getOperations().size(), 3u);
    // Both pieces of the split are asked for at once.
    EXPECT_EQ(main.getNumResults(), 2u);
    auto type =
        RankedTensorType::get({1}, IntegerType::get(m.getContext(), 64));
    return FailureOr<SmallVector<DenseElementsAttr>>(
        SmallVector<DenseElementsAttr>{
            DenseElementsAttr::get(type, ArrayRef<int64_t>({7})),
            DenseElementsAttr::get(type, ArrayRef<int64_t>({9}))});
  });
  EXPECT_EQ(constantInts(ir.piece), SmallVector<int64_t>({9}));
  EXPECT_EQ(constantInts(ir.piece), SmallVector<int64_t>({9}));
  EXPECT_EQ(constantInts(ir.piece.getDefiningOp()->getResult(0)),
            SmallVector<int64_t>({7}));
  EXPECT_EQ(calls, 1) << "one evaluation serves every result of the op";
  EXPECT_FALSE(constantInts(ir.runtime)) << "a graph input feeds it";
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(whyNotEvaluated(ir.runtime), "");
}

TEST_F(FrontendTest, AFailedEvaluationSaysWhy) {
  context.loadDialect<mlir::func::FuncDialect>();
  ConstantSliceFixture ir(context);
  ConstantEvaluation evaluation([](ModuleOp, std::string &error) {
    error = "not on this chip";
    return FailureOr<SmallVector<DenseElementsAttr>>(failure());
  });
  EXPECT_FALSE(constantInts(ir.piece));
  EXPECT_EQ(whyNotEvaluated(ir.piece),
            "; it is computed from constants, but evaluating it at compile "
            "time failed: not on this chip");
}

TEST_F(FrontendTest, WithoutAnEvaluatorOnlyFoldersResolve) {
  context.loadDialect<mlir::func::FuncDialect>();
  ConstantSliceFixture ir(context);
  EXPECT_FALSE(constantInts(ir.piece));
  EXPECT_EQ(whyNotEvaluated(ir.piece), "");
}

TEST_F(FrontendTest, ElementTypesAndTheirNames) {
  EXPECT_TRUE(elementTypeOf(onnx::TensorProto::FLOAT, &context).isF32());
  EXPECT_TRUE(elementTypeOf(onnx::TensorProto::BFLOAT16, &context).isBF16());
  EXPECT_TRUE(
      elementTypeOf(onnx::TensorProto::UINT8, &context).isUnsignedInteger(8));
  EXPECT_FALSE(elementTypeOf(onnx::TensorProto::STRING, &context));
  EXPECT_EQ(dataTypeName(onnx::TensorProto::FLOAT16), "FLOAT16");
  EXPECT_EQ(dataTypeName(kInt4), "INT4");
  EXPECT_EQ(dataTypeName(9999), "number 9999");
}

} // namespace
