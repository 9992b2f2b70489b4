//===- FuzzInitialize.cpp - Set-up shared by every fuzz target ---------===//
//
// Protobuf logs every string field with invalid UTF-8 it parses; for
// mutated inputs that is most of them, and the logging would slow the
// targets down and bury their findings. hetc reports such files itself.
//
//===----------------------------------------------------------------------===//

#include <google/protobuf/stubs/logging.h>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}
