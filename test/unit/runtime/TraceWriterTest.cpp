//===- TraceWriterTest.cpp - The Chrome trace of a chip-model run ------===//
//
// Traces are parsed back with protobuf's JSON parser (into a
// google.protobuf.Struct), so a malformed trace fails the tests.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/run/RunCommand.h"
#include "runtime/run/TraceWriter.h"
#include "runtime/sim/Simulator.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace hetc::test {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

Struct parseJson(const std::string &text) {
  Struct parsed;
  auto status = google::protobuf::util::JsonStringToMessage(text, &parsed);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << text;
  return parsed;
}

/// A parsed trace with its tracks by tid and its complete events.
struct Trace {
  Struct root;
  std::map<int, std::string> tracks;
  std::vector<Struct> events;
};

Trace traceOf(const TestProgram &program, const chip::ChipSpec &chip) {
  run::TraceRecorder recorder;
  sim::SimOptions options;
  options.observer = &recorder;
  sim::SimResult result;
  std::string error;
  EXPECT_TRUE(sim::simulate(program.artifact, chip, program.inputs, options,
                            result, error))
      << error;
  std::ostringstream out;
  run::writeTrace(out, program.artifact, chip, recorder.recorded());
  Trace trace{parseJson(out.str()), {}, {}};
  for (const Value &value :
       trace.root.fields().at("traceEvents").list_value().values()) {
    const Struct &event = value.struct_value();
    const std::string &phase = event.fields().at("ph").string_value();
    int tid = int(event.fields().at("tid").number_value());
    if (phase == "X")
      trace.events.push_back(event);
    else if (event.fields().at("name").string_value() == "thread_name")
      trace.tracks[tid] = event.fields()
                              .at("args")
                              .struct_value()
                              .fields()
                              .at("name")
                              .string_value();
  }
  return trace;
}

const Value &field(const Struct &s, const std::string &name) {
  return s.fields().at(name);
}
const Value &arg(const Struct &event, const std::string &name) {
  return field(field(event, "args").struct_value(), name);
}

// Tests the trace of the add program: valid JSON in nanosecond display
// units, one named track per unit used, one event per instruction named by
// opcode and index, timed at the 1000 MHz clock, with the node and operands.
TEST(TraceWriterTest, AddProgram) {
  chip::ChipSpec chip = loadChip("test-chip");
  Trace trace = traceOf(addProgram(chip), chip);
  EXPECT_EQ(field(trace.root, "displayTimeUnit").string_value(), "ns");
  std::multiset<std::string> names;
  for (const auto &[tid, name] : trace.tracks)
    names.insert(name);
  EXPECT_EQ(names, (std::multiset<std::string>{"MEM slice 0", "MEM slice 4",
                                               "MEM slice 5", "vector unit"}));
  ASSERT_EQ(trace.events.size(), 4u);
  std::map<std::string, const Struct *> byName;
  for (const Struct &event : trace.events)
    byName[field(event, "name").string_value()] = &event;
  ASSERT_TRUE(byName.count("V_ADD #2"));
  const Struct &add = *byName["V_ADD #2"];
  EXPECT_DOUBLE_EQ(field(add, "ts").number_value(), 0.007);
  EXPECT_DOUBLE_EQ(field(add, "dur").number_value(), 0.002);
  EXPECT_EQ(field(add, "pid").number_value(), 0);
  EXPECT_EQ(trace.tracks[int(field(add, "tid").number_value())], "vector unit");
  EXPECT_EQ(arg(add, "node").string_value(), "Add_0");
  EXPECT_EQ(arg(add, "cycle").number_value(), 7);
  EXPECT_EQ(arg(add, "lanes").number_value(), 16);
  EXPECT_EQ(arg(add, "unit").string_value(), "vector unit");
  ASSERT_TRUE(byName.count("MEM_WRITE #3"));
  const Struct &write = *byName["MEM_WRITE #3"];
  EXPECT_EQ(arg(write, "address").number_value(), 5 * 1024);
  EXPECT_EQ(trace.tracks[int(field(write, "tid").number_value())],
            "MEM slice 5");
}

// Tests that instructions overlapping on one unit go on a further track of
// that unit, so that no track holds overlapping events.
TEST(TraceWriterTest, OverlapGoesOnAFurtherTrack) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = addProgram(chip);
  ProgramBuilder builder(chip, program.artifact);
  builder.setNode("Extra");
  builder.vector(7, hetx::V_MUL, {east(0), west(0)}, east(8));
  program.artifact = builder.build();
  Trace trace = traceOf(program, chip);
  std::set<int> vectorTids;
  for (const Struct &event : trace.events)
    if (arg(event, "unit").string_value() == "vector unit")
      vectorTids.insert(int(field(event, "tid").number_value()));
  ASSERT_EQ(vectorTids.size(), 2u);
  EXPECT_EQ(trace.tracks[*vectorTids.begin()], "vector unit");
  EXPECT_EQ(trace.tracks[*vectorTids.rbegin()], "vector unit (2)");
}

// Tests that node names with quotes, backslashes and control characters
// survive the trip through JSON.
TEST(TraceWriterTest, NodeNamesAreEscaped) {
  chip::ChipSpec chip = loadChip("test-chip");
  TestProgram program = addProgram(chip);
  const std::string odd = "fc\"0\\relu\n\x01/\xc3\xa9";
  program.artifact.set_nodes(1, odd);
  Trace trace = traceOf(program, chip);
  ASSERT_FALSE(trace.events.empty());
  EXPECT_EQ(arg(trace.events[0], "node").string_value(), odd);
}

TEST(TraceWriterTest, JsonString) {
  EXPECT_EQ(run::jsonString("plain"), "\"plain\"");
  EXPECT_EQ(run::jsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(run::jsonString("\n\t\x1f"), "\"\\n\\t\\u001f\"");
  EXPECT_EQ(run::jsonString("\xc3\xa9"), "\"\xc3\xa9\"");
  // A lone continuation byte, a truncated sequence and a surrogate are not
  // UTF-8.
  EXPECT_EQ(run::jsonString("\x80"), "\"\\ufffd\"");
  EXPECT_EQ(run::jsonString("\xe2\x82"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(run::jsonString("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
}

class TraceRunTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir =
        std::filesystem::path(::testing::TempDir()) /
        ("trace_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    options.artifactPath = (dir / "add.hetx").string();
    options.chipPath = sourcePath("chips/test-chip.chip");
    options.tracePath = (dir / "trace.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  void write(const hetx::Artifact &artifact) {
    std::string error;
    ASSERT_TRUE(artifact::writeFile(artifact, options.artifactPath, error))
        << error;
  }
  std::string traceText() {
    std::ifstream in(options.tracePath);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  chip::ChipSpec chip = loadChip("test-chip");
  std::filesystem::path dir;
  run::RunOptions options;
  std::ostringstream out, err;
};

// Tests `hetc run --trace`: the file is written and the summary says so.
TEST_F(TraceRunTest, WritesTheTrace) {
  write(addProgram(chip).artifact);
  ASSERT_EQ(run::runCommand(options, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("trace: 4 events on 4 tracks -> " +
                           options.tracePath + "\n"),
            std::string::npos)
      << out.str();
  Struct root = parseJson(traceText());
  EXPECT_EQ(root.fields().at("traceEvents").list_value().values_size(),
            1 + 2 * 4 + 4);
}

// Tests that a run stopped by a hazard still writes the instructions that
// ran before it.
TEST_F(TraceRunTest, HazardRunKeepsTheTrace) {
  TestProgram program = addProgram(chip);
  program.artifact.mutable_instructions(0)->set_cycle(3);
  write(program.artifact);
  EXPECT_EQ(run::runCommand(options, out, err), 1);
  EXPECT_EQ(err.str().rfind("error: hazard: too early", 0), 0u) << err.str();
  EXPECT_NE(out.str().find("trace: 2 events"), std::string::npos) << out.str();
  parseJson(traceText());
}

// Tests that an unwritable trace path fails before the run.
TEST_F(TraceRunTest, UnwritablePath) {
  write(addProgram(chip).artifact);
  options.tracePath = (dir / "no" / "such" / "trace.json").string();
  EXPECT_EQ(run::runCommand(options, out, err), 1);
  EXPECT_EQ(err.str(),
            "error: " + options.tracePath +
                ": cannot write trace file: No such file or directory\n");
  EXPECT_EQ(out.str().find("simulated cycles"), std::string::npos);
}

} // namespace
} // namespace hetc::test
