//===- ChipSpecTest.cpp - Loading and checking chip files --------------===//

#include "TestPrograms.h"

#include "runtime/chip/ChipSpec.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

namespace hetc::test {
namespace {

/// Parses test-chip after `edit`; returns the error ("" if it loads).
std::string parseEdited(const std::function<void(chip::Chip &)> &edit) {
  chip::Chip proto = loadChip("test-chip").proto();
  edit(proto);
  std::string text, error;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  chip::ChipSpec spec;
  if (chip::ChipSpec::parse(text, "edited.chip", spec, error))
    return "";
  return error;
}

TEST(ChipSpecTest, BundledChipsLoad) {
  chip::ChipSpec test = loadChip("test-chip");
  EXPECT_EQ(test.name(), "test-chip");
  EXPECT_EQ(test.lanes(), 16u);
  EXPECT_EQ(test.vectorsPerSlice(), 1024u);
  EXPECT_EQ(test.totalVectors(), 8192u);
  EXPECT_EQ(test.positions(), 13u);
  EXPECT_EQ(test.planePosition(0), 0u);
  EXPECT_EQ(test.slicePosition(0), 2u);
  EXPECT_EQ(test.vectorPosition(), 6u);
  EXPECT_EQ(test.slicePosition(4), 7u);
  EXPECT_EQ(test.planePosition(1), 12u);
  EXPECT_EQ(test.switches(), 2u);
  EXPECT_EQ(test.switchPosition(0), 1u);
  EXPECT_EQ(test.switchPosition(1), 11u);
  EXPECT_EQ(test.streamGroups(), 8u);
  EXPECT_EQ(test.bankOf(1025), 1u);
  EXPECT_EQ(test.sliceOf(1025), 1u);

  chip::ChipSpec tsp = loadChip("tsp-v1");
  EXPECT_EQ(tsp.name(), "tsp-v1");
  EXPECT_EQ(tsp.lanes(), 320u);
  EXPECT_EQ(tsp.proto().memory().slices(), 88u);
  EXPECT_EQ(tsp.vectorsPerSlice(), 2048u);
  EXPECT_EQ(tsp.positions(), 95u);
  EXPECT_NE(tsp.fingerprint(), test.fingerprint());
  // tsp-v1 interleaves its addresses in runs of 64 vectors.
  EXPECT_TRUE(tsp.interleaved());
  EXPECT_EQ(tsp.runVectors(), 64u);
  EXPECT_FALSE(test.interleaved());
}

TEST(ChipSpecTest, InterleavedAddressesGoToSliceAfterSlice) {
  chip::Chip proto = loadChip("test-chip").proto();
  proto.mutable_memory()->set_interleave_vectors(4);
  std::string text, error;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  chip::ChipSpec spec;
  ASSERT_TRUE(chip::ChipSpec::parse(text, "interleaved.chip", spec, error))
      << error;
  ASSERT_EQ(spec.proto().memory().slices(), 8u);
  EXPECT_EQ(spec.runVectors(), 4u);
  // Runs of 4: addresses 0-3 in slice 0, 4-7 in slice 1, ..., 28-31 in
  // slice 7, then 32-35 back in slice 0 at rows 4-7.
  EXPECT_EQ(spec.sliceOf(3), 0u);
  EXPECT_EQ(spec.sliceOf(4), 1u);
  EXPECT_EQ(spec.sliceOf(31), 7u);
  EXPECT_EQ(spec.sliceOf(33), 0u);
  EXPECT_EQ(spec.rowInSlice(33), 5u);
  EXPECT_EQ(spec.bankOf(33), 1u);
  EXPECT_EQ(spec.bankOf(32), 0u);
  EXPECT_EQ(spec.sliceOf(spec.totalVectors() - 1), 7u);
  EXPECT_EQ(spec.rowInSlice(spec.totalVectors() - 1),
            spec.vectorsPerSlice() - 1);
  // A run of a whole slice is no interleaving at all.
  proto.mutable_memory()->set_interleave_vectors(1024);
  google::protobuf::TextFormat::PrintToString(proto, &text);
  ASSERT_TRUE(chip::ChipSpec::parse(text, "whole.chip", spec, error));
  EXPECT_FALSE(spec.interleaved());
  EXPECT_EQ(spec.sliceOf(1025), 1u);
}

TEST(ChipSpecTest, EachInvalidFieldIsNamed) {
  struct Case {
    const char *field;
    std::function<void(chip::Chip &)> edit;
  };
  const std::vector<Case> cases = {
      {"name", [](chip::Chip &c) { c.clear_name(); }},
      {"clock_mhz", [](chip::Chip &c) { c.set_clock_mhz(0); }},
      {"memory.interleave_vectors",
       [](chip::Chip &c) { c.mutable_memory()->set_interleave_vectors(3); }},
      {"lanes", [](chip::Chip &c) { c.set_lanes(0); }},
      {"streams.per_direction",
       [](chip::Chip &c) { c.mutable_streams()->set_per_direction(6); }},
      {"streams.hop_cycles",
       [](chip::Chip &c) { c.mutable_streams()->set_hop_cycles(0); }},
      {"memory.slices",
       [](chip::Chip &c) { c.mutable_memory()->set_slices(0); }},
      {"memory.slice_bytes",
       [](chip::Chip &c) { c.mutable_memory()->set_slice_bytes(100); }},
      {"memory.banks_per_slice",
       [](chip::Chip &c) { c.mutable_memory()->set_banks_per_slice(0); }},
      {"memory.accesses_per_bank_per_cycle",
       [](chip::Chip &c) {
         c.mutable_memory()->set_accesses_per_bank_per_cycle(0);
       }},
      {"matrix.planes",
       [](chip::Chip &c) { c.mutable_matrix()->set_planes(0); }},
      {"matrix.rows/cols",
       [](chip::Chip &c) { c.mutable_matrix()->set_cols(8); }},
      {"matrix.cycles_16bit",
       [](chip::Chip &c) { c.mutable_matrix()->set_cycles_16bit(65); }},
      {"matrix.cycles_32bit",
       [](chip::Chip &c) { c.mutable_matrix()->set_cycles_32bit(1u << 31); }},
      {"matrix.install_rows",
       [](chip::Chip &c) { c.mutable_matrix()->set_install_rows(2000); }},
      {"matrix.install_rows",
       [](chip::Chip &c) { c.mutable_matrix()->set_install_rows(9); }},
      {"vector.alus", [](chip::Chip &c) { c.mutable_vector()->set_alus(0); }},
      {"latency.mem_read",
       [](chip::Chip &c) { c.mutable_latency()->set_mem_read(0); }},
      {"latency.mem_write",
       [](chip::Chip &c) { c.mutable_latency()->set_mem_write(0); }},
      {"latency.vector_op",
       [](chip::Chip &c) { c.mutable_latency()->set_vector_op(0); }},
      {"latency.vector_reduce",
       [](chip::Chip &c) { c.mutable_latency()->set_vector_reduce(0); }},
      {"latency.matrix_load",
       [](chip::Chip &c) { c.mutable_latency()->set_matrix_load(0); }},
      {"latency.matrix_mul",
       [](chip::Chip &c) { c.mutable_latency()->set_matrix_mul(0); }},
      {"dispatch.per_cycle",
       [](chip::Chip &c) { c.mutable_dispatch()->set_per_cycle(0); }},
      {"dispatch.queue_depth",
       [](chip::Chip &c) { c.mutable_dispatch()->set_queue_depth(70000); }},
      {"latency.switch_op",
       [](chip::Chip &c) { c.mutable_latency()->set_switch_op(0); }},
      {"floorplan[0].count",
       [](chip::Chip &c) { c.mutable_floorplan(0)->set_count(0); }},
      {"floorplan[1].unit",
       [](chip::Chip &c) {
         c.mutable_floorplan(1)->set_unit(chip::UNIT_UNSPECIFIED);
       }},
      {"floorplan",
       [](chip::Chip &c) { c.mutable_floorplan(3)->set_count(2); }},
      // Upper bounds: a hostile file must not size the chip model's SRAM,
      // streams or floorplan without limit.
      {"clock_mhz", [](chip::Chip &c) { c.set_clock_mhz(1.0 / 0.0); }},
      {"streams.per_direction",
       [](chip::Chip &c) { c.mutable_streams()->set_per_direction(1u << 30); }},
      {"streams.hop_cycles",
       [](chip::Chip &c) { c.mutable_streams()->set_hop_cycles(4000000000u); }},
      {"memory.slice_bytes",
       [](chip::Chip &c) {
         c.mutable_memory()->set_slice_bytes(uint64_t(1) << 40);
       }},
      {"memory.banks_per_slice",
       [](chip::Chip &c) {
         c.mutable_memory()->set_banks_per_slice(1u << 31);
       }},
      {"vector.alus",
       [](chip::Chip &c) { c.mutable_vector()->set_alus(4000000000u); }},
      {"latency.matrix_mul",
       [](chip::Chip &c) { c.mutable_latency()->set_matrix_mul(1u << 31); }},
      {"dispatch.per_cycle",
       [](chip::Chip &c) { c.mutable_dispatch()->set_per_cycle(1u << 31); }},
      {"dma.latency",
       [](chip::Chip &c) { c.mutable_dma()->set_latency(1u << 31); }},
      {"floorplan[1].count",
       [](chip::Chip &c) { c.mutable_floorplan(1)->set_count(16384); }},
  };
  for (const Case &c : cases) {
    std::string error = parseEdited(c.edit);
    EXPECT_EQ(error.rfind("edited.chip: invalid chip description:", 0), 0u)
        << c.field << ": " << error;
    EXPECT_NE(error.find(std::string("field '") + c.field + "'"),
              std::string::npos)
        << c.field << ": " << error;
  }
  EXPECT_EQ(parseEdited([](chip::Chip &) {}), "");
}

TEST(ChipSpecTest, SyntaxErrorGivesFileAndLine) {
  chip::ChipSpec spec;
  std::string error;
  EXPECT_FALSE(chip::ChipSpec::parse("name: \"x\"\nlanes: oops\n", "bad.chip",
                                     spec, error));
  EXPECT_EQ(error.rfind("bad.chip:2:", 0), 0u) << error;
  EXPECT_FALSE(chip::ChipSpec::parse("name: \"x\"\nno_such_field: 1\n",
                                     "bad.chip", spec, error));
  EXPECT_EQ(error.rfind("bad.chip:2:", 0), 0u) << error;
  EXPECT_NE(error.find("no_such_field"), std::string::npos) << error;
}

TEST(ChipSpecTest, MissingFile) {
  chip::ChipSpec spec;
  std::string error;
  EXPECT_FALSE(chip::ChipSpec::load("chips/no-such.chip", spec, error));
  EXPECT_EQ(error, "chips/no-such.chip: chip file cannot be opened: No such file or directory");
}

} // namespace
} // namespace hetc::test
