//===- hetc-tokenize.cpp - SentencePiece encoding and decoding -----------===//
//
// Usage: hetc-tokenize MODEL (--encode TEXT [--no-bos] | --decode IDS |
//                             --info)
// Encodes text into token ids (comma-separated, as `hetc generate
// --prompt-ids` takes them), decodes ids into text, or prints what the
// tokenizer holds. MODEL is a SentencePiece model (`tokenizer.model`).
//
// It links Debian's libsentencepiece and nothing that uses protobuf: that
// library carries its own protobuf runtime, which cannot share a process
// with the libprotobuf the rest of hetc links.
//
//===----------------------------------------------------------------------===//

#include <CLI/CLI.hpp>
#include <sentencepiece_processor.h>

#include <climits>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

namespace {

/// The largest tokenizer file read: SentencePiece models of real
/// checkpoints are a few MB.
constexpr uintmax_t kMaxModelBytes = uintmax_t(256) << 20;

int fail(const std::string &message) {
  std::cerr << "error: " << message << "\n";
  return 1;
}

/// Refuses what is not a SentencePiece model file before the library
/// reads it: no regular file, a file past the size limit, or a Hugging
/// Face tokenizer.json.
bool checkModelFile(const std::string &path, std::string &error) {
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    error = path + ": no such tokenizer file";
    return false;
  }
  if (!std::filesystem::is_regular_file(status)) {
    error = path + ": the tokenizer is not a regular file";
    return false;
  }
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxModelBytes) {
    error = path + ": the tokenizer file is larger than 256 MiB";
    return false;
  }
  if (std::filesystem::path(path).extension() == ".json") {
    error = path +
            ": Hugging Face tokenizer.json files are not read (no maintained "
            "C++ reader is packaged); give the SentencePiece tokenizer.model "
            "the checkpoint ships";
    return false;
  }
  return true;
}

/// Parses comma-separated ids, each one the tokenizer has.
bool parseIds(const std::string &text, int pieces, std::vector<int> &ids,
              std::string &error) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(start, end - start);
    size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 0 || value >= pieces) {
      error = "token id '" + item + "' is not one of the tokenizer's " +
              std::to_string(pieces) + " pieces";
      return false;
    }
    ids.push_back(int(value));
    start = end + 1;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Encodes text into token ids and decodes ids into text with a "
               "SentencePiece tokenizer"};
  std::string model, encode, decode;
  bool noBos = false, info = false;
  app.add_option("model", model, "The SentencePiece model (tokenizer.model)")
      ->required();
  CLI::Option *encodeOption =
      app.add_option("--encode", encode,
                     "Text to encode; prints its ids, comma-separated, the "
                     "beginning-of-sequence id first where the model has one");
  CLI::Option *decodeOption =
      app.add_option("--decode", decode, "Comma-separated ids to decode");
  CLI::Option *infoOption = app.add_flag(
      "--info", info, "Print the pieces and the beginning and end ids");
  app.add_flag("--no-bos", noBos,
               "Encode without the beginning-of-sequence id");
  encodeOption->excludes(decodeOption)->excludes(infoOption);
  decodeOption->excludes(infoOption);
  CLI11_PARSE(app, argc, argv);
  if (!*encodeOption && !*decodeOption && !info)
    return fail("give --encode TEXT, --decode IDS or --info");

  std::string error;
  if (!checkModelFile(model, error))
    return fail(error);
  sentencepiece::SentencePieceProcessor processor;
  sentencepiece::util::Status status = processor.Load(model);
  if (!status.ok())
    return fail(model + ": not a SentencePiece model (" + status.ToString() +
                ")");
  if (info) {
    std::cout << "pieces " << processor.GetPieceSize() << "\nbos "
              << processor.bos_id() << "\neos " << processor.eos_id() << "\n";
    return 0;
  }
  if (*encodeOption) {
    std::vector<int> ids;
    status = processor.Encode(encode, &ids);
    if (!status.ok())
      return fail("encoding failed: " + status.ToString());
    if (!noBos && processor.bos_id() >= 0)
      ids.insert(ids.begin(), processor.bos_id());
    if (ids.empty())
      return fail("the text encodes to no token");
    for (size_t i = 0; i < ids.size(); ++i)
      std::cout << (i ? "," : "") << ids[i];
    std::cout << "\n";
    return 0;
  }
  std::vector<int> ids;
  if (!decode.empty() &&
      !parseIds(decode, processor.GetPieceSize(), ids, error))
    return fail(error);
  std::string text;
  status = processor.Decode(ids, &text);
  if (!status.ok())
    return fail("decoding failed: " + status.ToString());
  std::cout << text << "\n";
  return 0;
}
