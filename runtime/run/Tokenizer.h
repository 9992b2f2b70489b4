//===- Tokenizer.h - SentencePiece text for `hetc generate` -----*- C++ -*-===//
//
// Turns prompt text into token ids and generated ids back into text with a
// SentencePiece model, through the hetc-tokenize tool in a process of its
// own: Debian's libsentencepiece carries its own protobuf runtime, which
// aborts or crashes in a process that loads the libprotobuf hetc links.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_RUN_TOKENIZER_H
#define HETC_RUNTIME_RUN_TOKENIZER_H

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::run {

class Tokenizer {
public:
  /// Opens the SentencePiece model `model` (reading its pieces and its
  /// beginning and end ids); false with `error` set when the model or
  /// hetc-tokenize cannot be read or run.
  bool open(const std::string &model, std::string &error);

  /// The ids of `text`, the beginning-of-sequence id first where the model
  /// has one and `bos` asks for it.
  bool encode(const std::string &text, bool bos, std::vector<int64_t> &ids,
              std::string &error) const;
  /// The text of `ids`.
  bool decode(const std::vector<int64_t> &ids, std::string &text,
              std::string &error) const;

  int64_t pieces() const { return pieceCount; }
  /// The beginning- and end-of-sequence ids; -1 where the model has none.
  int64_t bos() const { return bosId; }
  int64_t eos() const { return eosId; }

private:
  /// Runs hetc-tokenize on the model with `args`; its standard output in
  /// `out`, or its error in `error`.
  bool run(const std::vector<std::string> &args, std::string &out,
           std::string &error) const;

  std::string model;
  std::string tool;
  int64_t pieceCount = 0, bosId = -1, eosId = -1;
};

} // namespace hetc::run

#endif // HETC_RUNTIME_RUN_TOKENIZER_H
