//===- InstructionInterfaceTest.cpp - What each instruction is on a chip --===//
//
// InstructionOpInterface, read back on chips/test-chip.chip: 16 lanes, 8
// slices of 1024 rows with 2 banks, 4 vector ALUs, 2 planes, 2 DMA engines
// of 16 bytes a cycle, 2 links; floorplan MATRIX, SWITCH, 4 x MEMORY,
// VECTOR, 4 x MEMORY, SWITCH, MATRIX (positions 0 to 12).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialects/hisa/IR/BufferLayout.h"
#include "compiler/dialects/hisa/IR/HIsa.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace mlir;
using namespace hetc;

namespace {

class InstructionInterfaceTest : public ::testing::Test {
protected:
  void SetUp() override {
    context.loadDialect<func::FuncDialect, hisa::HIsaDialect>();
    const char *root = std::getenv("HETC_SOURCE_DIR");
    std::string error;
    ASSERT_TRUE(chip::ChipSpec::load(
        std::string(root ? root : ".") + "/chips/test-chip.chip", chip, error))
        << error;
  }

  /// The instructions of `body`, parsed as a function, in order.
  std::vector<hisa::InstructionOpInterface> parse(const std::string &body) {
    module = parseSourceString<ModuleOp>(
        "func.func @main() {\n" + body + "\n  return\n}", &context);
    std::vector<hisa::InstructionOpInterface> ops;
    if (module)
      module->walk([&](hisa::InstructionOpInterface op) { ops.push_back(op); });
    return ops;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  chip::ChipSpec chip;
};

TEST_F(InstructionInterfaceTest, MemoryInstructionsIssueOnTheirBank) {
  auto ops = parse(R"(
    %0 = hisa.read 1500
    hisa.write %0 to 2049 part 1 as f16)");
  ASSERT_EQ(ops.size(), 2u);
  std::optional<hisa::IssueInfo> read = ops[0].describe(chip);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->unit, "slice1.bank0");
  EXPECT_EQ(read->position, 3);
  EXPECT_EQ(read->latency, 1);
  EXPECT_EQ(read->capacity, 1u);
  std::optional<hisa::MemoryAccess> access = ops[0].getMemoryAccess();
  ASSERT_TRUE(access);
  EXPECT_EQ(access->row, 1500);
  EXPECT_FALSE(access->isWrite);

  EXPECT_EQ(ops[1].describe(chip)->unit, "slice2.bank1");
  access = ops[1].getMemoryAccess();
  ASSERT_TRUE(access);
  EXPECT_EQ(access->row, 2049);
  EXPECT_EQ(access->part, 1u);
  EXPECT_TRUE(access->isWrite);
  EXPECT_FALSE(ops[1].getPlaneUse());
}

TEST_F(InstructionInterfaceTest, UnitsAndLatenciesComeFromTheChip) {
  auto ops = parse(R"(
    %0 = hisa.read 0
    %1 = hisa.vbinary add %0, %0 lanes 16
    %2 = hisa.vreduce sum %1 lanes 16
    hisa.load_weights %2 plane 1 row 0
    %3 = hisa.matmul %0 plane 1
    %4 = hisa.permute %3 switch 1 map [0, 1]
    hisa.write %4 to 0)");
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(ops[1].describe(chip)->unit, "vector");
  EXPECT_EQ(ops[1].describe(chip)->capacity, 4u);
  EXPECT_EQ(ops[1].describe(chip)->latency, 2);
  EXPECT_EQ(ops[1].describe(chip)->position, 6);
  EXPECT_EQ(ops[2].describe(chip)->latency, 3);
  EXPECT_EQ(ops[3].describe(chip)->unit, "plane1");
  EXPECT_EQ(ops[3].describe(chip)->latency, 1);
  EXPECT_EQ(ops[3].describe(chip)->position, 12);
  ASSERT_TRUE(ops[3].getPlaneUse());
  EXPECT_EQ(ops[3].getPlaneUse()->kind, hisa::PlaneUse::Load);
  EXPECT_EQ(ops[4].describe(chip)->latency, 4);
  EXPECT_EQ(ops[4].getPlaneUse()->kind, hisa::PlaneUse::Multiply);
  EXPECT_EQ(ops[5].describe(chip)->unit, "switch1");
  EXPECT_EQ(ops[5].describe(chip)->position, 11);
}

TEST_F(InstructionInterfaceTest, DmaAndLinksQueueInOrder) {
  auto ops = parse(R"(
    hisa.dma_in host 0 to 4 engine 1
    %0 = hisa.c2c_recv link 0
    hisa.c2c_send %0 link 1)");
  ASSERT_EQ(ops.size(), 3u);
  std::optional<hisa::IssueInfo> dma = ops[0].describe(chip);
  EXPECT_EQ(dma->unit, "dma1");
  EXPECT_EQ(dma->position, -1);
  EXPECT_EQ(dma->latency, 20);
  // 16 lanes of 4 bytes at 16 bytes a cycle.
  EXPECT_EQ(dma->occupancy, 4u);
  EXPECT_EQ(ops[0].getDmaEngine(), 1);
  EXPECT_TRUE(ops[0].getMemoryAccess()->isWrite);
  ASSERT_TRUE(ops[1].getLinkUse());
  EXPECT_FALSE(ops[1].getLinkUse()->isSend);
  EXPECT_EQ(ops[2].getLinkUse()->link, 1);
  EXPECT_TRUE(ops[2].getLinkUse()->isSend);
  EXPECT_EQ(ops[2].describe(chip)->latency, 10);
  EXPECT_FALSE(ops[1].getDmaEngine());
}

TEST_F(InstructionInterfaceTest, FieldsOutsideTheChipAreRefused) {
  auto ops = parse(R"(
    %0 = hisa.read 8192
    %1 = hisa.matmul %0 plane 2
    hisa.dma_in host 0 to 4 engine 2
    hisa.c2c_send %1 link 2
    %2 = hisa.permute %1 switch 2 map [0]
    hisa.write %2 to 8191)");
  ASSERT_EQ(ops.size(), 6u);
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  for (hisa::InstructionOpInterface op : ops)
    (void)op.verifyOnChip(chip);
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_EQ(messages[0], "address 8192 is outside SRAM (chip 'test-chip' "
                         "has 8192 vectors)");
  EXPECT_EQ(messages[1], "plane 2 does not exist (chip 'test-chip' has 2)");
  EXPECT_EQ(messages[2],
            "DMA engine 2 does not exist (chip 'test-chip' has 2)");
  EXPECT_EQ(messages[3], "C2C link 2 does not exist (chip 'test-chip' has 2)");
  EXPECT_EQ(messages[4], "switch 2 does not exist (chip 'test-chip' has 2)");
}

TEST_F(InstructionInterfaceTest, CycleAndStreamOnceScheduled) {
  auto ops = parse(R"(
    %0 = hisa.read 0
    hisa.write %0 to 1)");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_FALSE(ops[0].getIssueCycleAttr());
  ops[0].setIssueCycle(7);
  EXPECT_EQ(ops[0].getIssueCycleAttr().getInt(), 7);
  auto stream =
      hisa::StreamAttr::get(&context, hisa::Direction::west, /*id=*/3);
  ops[0].setResultStream(stream);
  EXPECT_EQ(ops[0].getResultStream(), stream);
  // A write has no result, so no stream.
  ops[1].setResultStream(stream);
  EXPECT_FALSE(ops[1].getResultStream());
}

TEST_F(InstructionInterfaceTest, GatherIsAChainOverTheSlicesOfItsTable) {
  auto ops = parse(R"(
    %0 = hisa.read 0
    %1 = hisa.gather %0 lane 0 table 1000 stride 1 rows 100)");
  ASSERT_EQ(ops.size(), 2u);
  auto gather = cast<hisa::GatherOp>(ops[1].getOperation());
  EXPECT_FALSE(ops[1].describe(chip));
  std::vector<hisa::GatherBand> bands = gather.getBands(chip);
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_EQ(bands[0].slice, 0u);
  EXPECT_EQ(bands[0].rowBegin, 0);
  EXPECT_EQ(bands[0].rowEnd, 24);
  EXPECT_EQ(bands[1].slice, 1u);
  EXPECT_EQ(bands[1].position, 3);
  EXPECT_EQ(bands[1].rowBegin, 24);
  EXPECT_EQ(bands[1].rowEnd, 100);
}

TEST(VectorUnitTest, OneRuleForWhereEachOperationIsDefined) {
  MLIRContext context;
  Builder b(&context);
  EXPECT_TRUE(hisa::isDefinedOn(hisa::VBinaryKind::add, b.getI32Type()));
  EXPECT_FALSE(hisa::isDefinedOn(hisa::VBinaryKind::pow, b.getI32Type()));
  EXPECT_TRUE(hisa::isDefinedOn(hisa::VBinaryKind::and_, b.getI1Type()));
  EXPECT_FALSE(hisa::isDefinedOn(hisa::VBinaryKind::shl, b.getI1Type()));
  EXPECT_TRUE(hisa::isDefinedOn(hisa::VUnaryKind::neg, b.getI32Type()));
  EXPECT_FALSE(hisa::isDefinedOn(hisa::VUnaryKind::exp, b.getI32Type()));
  EXPECT_TRUE(hisa::isDefinedOn(hisa::VUnaryKind::exp, b.getBF16Type()));
  EXPECT_FALSE(hisa::isDefinedOn(hisa::VUnaryKind::not_, b.getF32Type()));
  EXPECT_TRUE(hisa::isComparisonDefinedOn(b.getI1Type()));
  EXPECT_FALSE(hisa::isComparisonDefinedOn(b.getIntegerType(8)));
  EXPECT_EQ(hisa::typesDefinedOn(hisa::VBinaryKind::pow), "f32, f16 and bf16");
  EXPECT_EQ(hisa::typesDefinedOn(hisa::VUnaryKind::not_), "i1");
}

TEST(BufferLayoutTest, RowsPadToVectorsAndNarrowTypesShareRows) {
  MLIRContext context;
  Builder b(&context);
  BufferLayout f32 = layoutOf(MemRefType::get({3, 20}, b.getF32Type()), 16);
  EXPECT_EQ(f32.rows, 3);
  EXPECT_EQ(f32.cols, 20);
  EXPECT_EQ(f32.vectorsPerRow, 2);
  EXPECT_EQ(f32.vectors(), 6);
  EXPECT_EQ(f32.sramRows(), 6);
  // Words are quarter rows: vector 3 from row 10 is row 13, word 52.
  EXPECT_EQ(f32.word(10, 3), 52);
  BufferLayout f16 = layoutOf(MemRefType::get({3, 20}, b.getF16Type()), 16);
  EXPECT_EQ(f16.perSramRow, 2);
  EXPECT_EQ(f16.sramRows(), 3);
  // Vector 3 is part 1 of row 11: word 11 * 4 + 2.
  EXPECT_EQ(f16.word(10, 3), 46);
  BufferLayout i8 = layoutOf(MemRefType::get({5}, b.getIntegerType(8)), 16);
  EXPECT_EQ(i8.perSramRow, 4);
  EXPECT_EQ(i8.sramRows(), 1);
  BufferLayout scalar = layoutOf(ArrayRef<int64_t>{}, 16);
  EXPECT_EQ(scalar.vectors(), 1);
  BufferLayout empty = layoutOf(ArrayRef<int64_t>{4, 0}, 16);
  EXPECT_EQ(empty.rows, 0);
  EXPECT_EQ(empty.vectors(), 0);
}

} // namespace
