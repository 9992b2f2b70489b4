//===- SafeFileTest.cpp - Atomic writes and guarded reads --------------===//

#include "runtime/io/SafeRead.h"
#include "runtime/io/SafeWrite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetc::test {
namespace {

namespace fs = std::filesystem;

class SafeFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::path(::testing::TempDir()) /
          ("safe_file_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  static std::string contents(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  /// The names in the folder: a failed write must leave no temporary.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const fs::directory_entry &e : fs::directory_iterator(dir))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir;
  std::string error;
};

// Tests that a write creates or replaces the file and keeps a replaced
// file's permissions.
TEST_F(SafeFileTest, WritesAndReplaces) {
  std::string path = (dir / "a.bin").string();
  ASSERT_TRUE(io::writeFileAtomically(path, "first", error)) << error;
  EXPECT_EQ(contents(path), "first");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(io::writeFileAtomically(path, "second", error)) << error;
  EXPECT_EQ(contents(path), "second");
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
  EXPECT_EQ(entries(), std::vector<std::string>{"a.bin"});
}

// Tests that a write failing part-way under a file-size limit leaves the
// old file byte for byte, removes its temporary and says why.
TEST_F(SafeFileTest, FailedWriteKeepsTheOldFile) {
  std::string path = (dir / "artifact.hetx").string();
  std::string old(3000, 'o');
  ASSERT_TRUE(io::writeFileAtomically(path, old, error)) << error;

  io::reportFileSizeLimitAsError();
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = 2048;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool ok = io::writeFileAtomically(path, std::string(6000, 'n'), error);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &saved), 0);

  EXPECT_FALSE(ok);
  EXPECT_EQ(error, path + ": cannot write: File too large (the existing file "
                          "is unchanged)");
  EXPECT_EQ(contents(path), old);
  EXPECT_EQ(entries(), std::vector<std::string>{"artifact.hetx"});
}

// Tests that a write through a symbolic link replaces the file it points
// to and keeps the link.
TEST_F(SafeFileTest, WritesThroughALink) {
  fs::path target = dir / "target.bin", link = dir / "link.bin";
  ASSERT_TRUE(io::writeFileAtomically(target.string(), "old", error));
  fs::create_symlink(target, link);
  ASSERT_TRUE(io::writeFileAtomically(link.string(), "new", error)) << error;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(target), "new");
}

// Tests that a directory and a missing folder are refused with the reason.
TEST_F(SafeFileTest, RefusesDirectoriesAndMissingFolders) {
  EXPECT_FALSE(io::writeFileAtomically(dir.string(), "x", error));
  EXPECT_EQ(error, dir.string() + ": cannot write: it is a directory");
  std::string missing = (dir / "no" / "x.bin").string();
  EXPECT_FALSE(io::writeFileAtomically(missing, "x", error));
  EXPECT_EQ(error, missing + ": cannot write: No such file or directory");
}

// Tests that an output naming an input, also through a symbolic or a hard
// link, is refused, and that other paths are not.
TEST_F(SafeFileTest, RefusesAnInputAsOutput) {
  fs::path input = dir / "model.onnx";
  std::ofstream(input) << "model";
  fs::create_symlink(input, dir / "soft.onnx");
  fs::create_hard_link(input, dir / "hard.onnx");
  for (const char *name : {"model.onnx", "soft.onnx", "hard.onnx"}) {
    std::string output = (dir / name).string();
    EXPECT_FALSE(io::refuseInputAsOutput(output, {input.string()}, "-o", error))
        << name;
    EXPECT_EQ(error, "-o '" + output + "' is the input file '" +
                         input.string() +
                         "'; writing it would destroy the input (choose "
                         "another path)");
  }
  EXPECT_TRUE(io::refuseInputAsOutput((dir / "model.hetx").string(),
                                      {input.string()}, "-o", error));
  EXPECT_EQ(contents(input), "model");
}

// Tests that reads take regular files only, never block on a FIFO, and
// refuse a file over the limit before allocating it.
TEST_F(SafeFileTest, ReadsRegularFilesOnly) {
  std::string bytes;
  std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(io::readRegularFile(fifo, 100, bytes, error));
  EXPECT_EQ(error, "is not a regular file (a device, FIFO or socket)");
  EXPECT_FALSE(io::readRegularFile("/dev/zero", 100, bytes, error));
  EXPECT_EQ(error, "is not a regular file (a device, FIFO or socket)");
  EXPECT_FALSE(io::readRegularFile(dir.string(), 100, bytes, error));
  EXPECT_EQ(error, "is a directory");

  std::string file = (dir / "ten.bin").string();
  std::ofstream(file) << "0123456789";
  EXPECT_FALSE(io::readRegularFile(file, 9, bytes, error));
  EXPECT_EQ(error, "holds 10 bytes, more than the 9 hetc reads");
  ASSERT_TRUE(io::readRegularFile(file, 10, bytes, error)) << error;
  EXPECT_EQ(bytes, "0123456789");
}

} // namespace
} // namespace hetc::test
