//===- ArtifactFileTest.cpp - Reading and writing .hetx files ----------===//

#include "TestPrograms.h"

#include "runtime/artifact/ArtifactFile.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace hetc::test {
namespace {

class ArtifactFileTest : public ::testing::Test {
protected:
  chip::ChipSpec chip = loadChip("test-chip");
  hetx::Artifact artifact = matmulProgram(chip).artifact;
  std::string bytes = artifact::serialize(artifact);

  std::string parseError(const std::string &image) {
    hetx::Artifact parsed;
    std::string error;
    if (artifact::parse(image, "model.hetx", parsed, error))
      return "";
    return error;
  }
};

TEST_F(ArtifactFileTest, RoundTrip) {
  hetx::Artifact parsed;
  std::string error;
  ASSERT_TRUE(artifact::parse(bytes, "model.hetx", parsed, error)) << error;
  EXPECT_EQ(parsed.SerializeAsString(), artifact.SerializeAsString());
  EXPECT_EQ(artifact::serialize(parsed), bytes) << "serialisation is stable";
  EXPECT_EQ(bytes.substr(0, 4), "HETX");
}

TEST_F(ArtifactFileTest, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "artifact_roundtrip.hetx";
  std::string error;
  ASSERT_TRUE(artifact::writeFile(artifact, path, error)) << error;
  hetx::Artifact read;
  ASSERT_TRUE(artifact::readFile(path, read, error)) << error;
  EXPECT_EQ(read.SerializeAsString(), artifact.SerializeAsString());
  std::remove(path.c_str());
  EXPECT_FALSE(artifact::readFile(path, read, error));
  EXPECT_EQ(error, path + ": artifact cannot be opened: No such file or directory");
}

TEST_F(ArtifactFileTest, WrongMagic) {
  std::string image = bytes;
  image[0] = 'X';
  EXPECT_EQ(parseError(image),
            "model.hetx: not a .hetx artifact (missing 'HETX' header)");
  EXPECT_EQ(parseError("HE"),
            "model.hetx: not a .hetx artifact (missing 'HETX' header)");
}

TEST_F(ArtifactFileTest, WrongVersion) {
  std::string image = bytes;
  image[4] = 1;
  EXPECT_EQ(parseError(image),
            "model.hetx: artifact format version 1 is not supported (this "
            "runtime reads version 6); recompile the model");
}

TEST_F(ArtifactFileTest, Truncated) {
  std::string image = bytes.substr(0, bytes.size() - 1);
  EXPECT_NE(parseError(image).find("model.hetx: artifact is truncated"),
            std::string::npos);
}

TEST_F(ArtifactFileTest, FlippedPayloadByteFailsTheChecksum) {
  std::string image = bytes;
  image[artifact::kHeaderBytes + image.size() / 2 - 12] ^= 0x10;
  EXPECT_NE(parseError(image).find("model.hetx: artifact is corrupt (checksum"),
            std::string::npos);
}

TEST_F(ArtifactFileTest, WithoutInstructionsReadsEverythingElse) {
  ASSERT_GT(artifact.instructions_size(), 0);
  ASSERT_GT(artifact.inputs_size(), 0);
  hetx::Artifact parsed;
  std::string error;
  ASSERT_TRUE(artifact::parse(bytes, "model.hetx", parsed, error,
                              artifact::Sections::WithoutInstructions))
      << error;
  hetx::Artifact expected = artifact;
  expected.clear_instructions();
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
}

TEST_F(ArtifactFileTest, WithoutInstructionsRefusesAFieldCutShort) {
  // A payload whose checksum holds but whose instruction claims 5 bytes
  // where 2 follow: skipping it must fail, not read past the end.
  std::string payload = "\x32\x05" "ab";
  std::string image = "HETX";
  auto put = [&](uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
      image.push_back(char((value >> (8 * i)) & 0xff));
  };
  put(artifact::kFormatVersion, 4);
  put(payload.size(), 8);
  put(chip::fnv1a64(payload.data(), payload.size()), 8);
  image += payload;
  hetx::Artifact parsed;
  std::string error;
  EXPECT_FALSE(artifact::parse(image, "model.hetx", parsed, error,
                               artifact::Sections::WithoutInstructions));
  EXPECT_EQ(error,
            "model.hetx: artifact payload is not a valid hetc.hetx.Artifact");
}

TEST_F(ArtifactFileTest, ChipMismatch) {
  std::string error;
  EXPECT_TRUE(artifact::checkChipMatch(artifact, chip, error));
  EXPECT_FALSE(artifact::checkChipMatch(artifact, loadChip("tsp-v1"), error));
  EXPECT_EQ(error.rfind("artifact was compiled for chip 'test-chip' revision "
                        "1 (fingerprint 0x",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("but the chip is 'tsp-v1' revision 1"),
            std::string::npos);
  // Same name and revision, other figures: the fingerprint tells.
  chip::ChipSpec edited = testChipWith(
      [](chip::Chip &c) { c.mutable_latency()->set_matrix_mul(5); });
  EXPECT_FALSE(artifact::checkChipMatch(artifact, edited, error));
}

} // namespace
} // namespace hetc::test
