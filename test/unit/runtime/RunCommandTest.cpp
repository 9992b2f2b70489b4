//===- RunCommandTest.cpp - The `hetc run` command ---------------------===//

#include "TestPrograms.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/Npy.h"
#include "runtime/run/FileNames.h"
#include "runtime/run/RandomInputs.h"
#include "runtime/run/RunCommand.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace hetc::test {
namespace {

namespace fs = std::filesystem;

class RunCommandTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir =
        fs::path(::testing::TempDir()) /
        ("run_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    options.artifactPath = (dir / "add.hetx").string();
    options.chipPath = sourcePath("chips/test-chip.chip");
    writeArtifact(addProgram(chip).artifact);
  }
  void TearDown() override { fs::remove_all(dir); }

  void writeArtifact(const hetx::Artifact &artifact) {
    std::string error;
    ASSERT_TRUE(artifact::writeFile(artifact, options.artifactPath, error))
        << error;
  }
  int run() {
    out.str("");
    err.str("");
    return run::runCommand(options, out, err);
  }

  chip::ChipSpec chip = loadChip("test-chip");
  fs::path dir;
  run::RunOptions options;
  std::ostringstream out, err;
};

TEST_F(RunCommandTest, GeneratesInputsAndWritesOutputs) {
  options.outputDir = (dir / "out").string();
  ASSERT_EQ(run(), 0) << err.str();
  std::string text = out.str();
  std::string outDir = options.outputDir;
  EXPECT_NE(text.find("input 'a': shape [16], generated (seed 0), saved to " +
                      outDir + "/inputs/a.npy\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("output 'y': shape [16] -> " + outDir + "/y.npy\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("instructions: 4 (4 issues)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("simulated cycles: 12\n"), std::string::npos) << text;
  EXPECT_NE(text.find("predicted cycles: 12\n"), std::string::npos) << text;
  EXPECT_NE(text.find("time at 1000 MHz: 0.012 us\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("predicted cycles == simulated cycles: yes\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(err.str(), "");

  io::Tensor a, b, y;
  std::string error;
  ASSERT_TRUE(io::readNpy(outDir + "/inputs/a.npy", a, error)) << error;
  ASSERT_TRUE(io::readNpy(outDir + "/inputs/b.npy", b, error)) << error;
  ASSERT_TRUE(io::readNpy(outDir + "/y.npy", y, error)) << error;
  ASSERT_EQ(y.shape, std::vector<int64_t>{16});
  for (int i = 0; i < 16; ++i) {
    EXPECT_GE(a.data[i], -1.0f);
    EXPECT_LE(a.data[i], 1.0f);
    EXPECT_EQ(y.data[i], a.data[i] + b.data[i]);
  }
  EXPECT_NE(a.data, b.data);
}

TEST_F(RunCommandTest, SeedDecidesGeneratedInputs) {
  io::Tensor first = run::randomTensor("a", {16}, 0);
  EXPECT_EQ(first.data, run::randomTensor("a", {16}, 0).data);
  EXPECT_NE(first.data, run::randomTensor("a", {16}, 1).data);
  EXPECT_NE(first.data, run::randomTensor("b", {16}, 0).data);
}

TEST_F(RunCommandTest, ReadsGivenInputs) {
  std::string error;
  std::string path = (dir / "a.npy").string();
  ASSERT_TRUE(io::writeNpy(path, io::Tensor{{16}, std::vector<float>(16, 0.5f)},
                           error));
  options.inputs["a"] = path;
  options.outputDir = (dir / "out").string();
  ASSERT_EQ(run(), 0) << err.str();
  EXPECT_NE(out.str().find("input 'a': shape [16], from " + path + "\n"),
            std::string::npos)
      << out.str();
  EXPECT_FALSE(fs::exists(dir / "out" / "inputs" / "a.npy"));
  io::Tensor b, y;
  ASSERT_TRUE(io::readNpy((dir / "out/inputs/b.npy").string(), b, error));
  ASSERT_TRUE(io::readNpy((dir / "out/y.npy").string(), y, error));
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(y.data[i], 0.5f + b.data[i]);
}

TEST_F(RunCommandTest, UnknownInput) {
  options.inputs["z"] = "z.npy";
  EXPECT_EQ(run(), 1);
  EXPECT_EQ(err.str(), "error: --input names 'z' (z.npy), but the artifact "
                       "has no such input (its inputs: 'a', 'b')\n");
}

TEST_F(RunCommandTest, WrongInputShape) {
  std::string error, path = (dir / "a.npy").string();
  ASSERT_TRUE(
      io::writeNpy(path, io::Tensor{{2, 8}, std::vector<float>(16)}, error));
  options.inputs["a"] = path;
  EXPECT_EQ(run(), 1);
  EXPECT_EQ(err.str(), "error: input 'a' from " + path +
                           " has shape [2, 8], but the artifact expects "
                           "[16]\n");
}

TEST_F(RunCommandTest, MalformedInputFile) {
  std::string path = (dir / "a.npy").string();
  std::ofstream(path) << "not numpy";
  options.inputs["a"] = path;
  EXPECT_EQ(run(), 1);
  EXPECT_NE(err.str().find(path + ": not a .npy file"), std::string::npos)
      << err.str();
}

TEST_F(RunCommandTest, PredictionMismatchIsAnError) {
  hetx::Artifact artifact = addProgram(chip).artifact;
  artifact.set_predicted_cycles(13);
  writeArtifact(artifact);
  EXPECT_EQ(run(), 1);
  EXPECT_NE(out.str().find("predicted cycles == simulated cycles: no\n"),
            std::string::npos);
  EXPECT_EQ(err.str(), "error: the artifact predicts 13 cycles, but the chip "
                       "model took 12\n");
}

TEST_F(RunCommandTest, HazardIsAnError) {
  hetx::Artifact artifact = addProgram(chip).artifact;
  artifact.mutable_instructions(0)->set_cycle(3);
  writeArtifact(artifact);
  EXPECT_EQ(run(), 1);
  EXPECT_EQ(err.str().rfind("error: hazard: too early at cycle 7: ", 0), 0u)
      << err.str();
}

TEST_F(RunCommandTest, CorruptArtifact) {
  std::string error, bytes;
  {
    std::ifstream in(options.artifactPath, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 3] ^= 1;
  std::ofstream(options.artifactPath, std::ios::binary) << bytes;
  EXPECT_EQ(run(), 1);
  EXPECT_NE(err.str().find(options.artifactPath + ": artifact is corrupt"),
            std::string::npos)
      << err.str();
  options.artifactPath = (dir / "missing.hetx").string();
  EXPECT_EQ(run(), 1);
  EXPECT_EQ(err.str(),
            "error: " + options.artifactPath + ": artifact cannot be opened: No such file or directory\n");
}

// Tests that an artifact whose input is far larger than the chip holds is
// refused before its input is generated (it used to allocate first).
TEST_F(RunCommandTest, HugeInputIsRefusedBeforeAllocation) {
  hetx::Artifact artifact = addProgram(chip).artifact;
  artifact.mutable_inputs(0)->clear_shape();
  artifact.mutable_inputs(0)->add_shape(int64_t(1) << 40);
  artifact.mutable_inputs(0)->add_shape(int64_t(1) << 30);
  writeArtifact(artifact);
  EXPECT_EQ(run(), 1);
  EXPECT_EQ(err.str().rfind("error: input 'a': shape [1099511627776, "
                            "1073741824] is invalid or too large",
                            0),
            0u)
      << err.str();
}

TEST_F(RunCommandTest, ChipMismatch) {
  options.chipPath = sourcePath("chips/tsp-v1.chip");
  EXPECT_EQ(run(), 1);
  EXPECT_NE(err.str().find("artifact was compiled for chip 'test-chip'"),
            std::string::npos)
      << err.str();
}

TEST_F(RunCommandTest, DefaultChipComesFromTheChipsDirectory) {
  options.chipPath.clear();
  ASSERT_EQ(run(), 0) << err.str();
  EXPECT_NE(
      out.str().find("chip: " + run::chipsDirectory() + "/test-chip.chip\n"),
      std::string::npos)
      << out.str();
  setenv("HETC_CHIPS_DIR", dir.c_str(), 1);
  EXPECT_EQ(run(), 1);
  unsetenv("HETC_CHIPS_DIR");
  EXPECT_EQ(err.str(), "error: " + (dir / "test-chip.chip").string() +
                           ": chip file cannot be opened: No such file or "
                           "directory\n");
}

TEST_F(RunCommandTest, OutputNamesAreSanitised) {
  EXPECT_EQ(run::sanitizeFileName("layer/out:0"), "layer_out_0");
  EXPECT_EQ(run::sanitizeFileName(".."), "_.");
  EXPECT_EQ(run::sanitizeFileName(""), "_");
  std::set<std::string> taken;
  EXPECT_EQ(run::uniqueFileName("a/b", taken), "a_b");
  EXPECT_EQ(run::uniqueFileName("a:b", taken), "a_b_2");

  hetx::Artifact artifact = addProgram(chip).artifact;
  artifact.mutable_outputs(0)->set_name("/model/Add:0");
  writeArtifact(artifact);
  options.outputDir = (dir / "out").string();
  ASSERT_EQ(run(), 0) << err.str();
  EXPECT_TRUE(fs::exists(dir / "out" / "_model_Add_0.npy"));
}

} // namespace
} // namespace hetc::test
