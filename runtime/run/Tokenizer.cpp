//===- Tokenizer.cpp - SentencePiece text for `hetc generate` ----------===//

#include "runtime/run/Tokenizer.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace hetc::run {

namespace {

/// The most output read from hetc-tokenize (the ids or text of one
/// generation are far less).
constexpr size_t kMaxOutput = size_t(64) << 20;

/// hetc-tokenize beside the running executable (the build's bin/ folder,
/// or an installed prefix's), else the name for a PATH search.
std::string findTool() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n > 0) {
    std::string path(self, size_t(n));
    std::string candidate =
        path.substr(0, path.rfind('/') + 1) + "hetc-tokenize";
    if (access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "hetc-tokenize";
}

/// Runs `argv` with its standard output and error read through pipes;
/// its exit status in `status`.
bool spawnAndRead(const std::vector<std::string> &argv, std::string &out,
                  std::string &err, int &status, std::string &error) {
  int outPipe[2], errPipe[2];
  if (pipe(outPipe) != 0) {
    error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return false;
  }
  if (pipe(errPipe) != 0) {
    error = std::string("cannot make a pipe: ") + std::strerror(errno);
    close(outPipe[0]);
    close(outPipe[1]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, outPipe[0]);
  posix_spawn_file_actions_addclose(&actions, errPipe[0]);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int spawned =
      posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (spawned != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    error = "cannot run " + argv[0] + ": " + std::strerror(spawned) +
            " (it is built beside hetc)";
    return false;
  }
  // Both pipes are read as data comes, so that neither fills up while the
  // other is waited on.
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&out, &err};
  int open = 2;
  bool tooMuch = false;
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buffer[65536];
      ssize_t got = read(fds[i].fd, buffer, sizeof(buffer));
      if (got > 0 && sinks[i]->size() + size_t(got) <= kMaxOutput) {
        sinks[i]->append(buffer, size_t(got));
        continue;
      }
      if (got > 0)
        tooMuch = true;
      if (got < 0 && errno == EINTR)
        continue;
      close(fds[i].fd);
      fds[i].fd = -1;
      --open;
    }
  }
  for (pollfd &fd : fds)
    if (fd.fd >= 0)
      close(fd.fd);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (tooMuch) {
    error = argv[0] + " wrote more than 64 MiB";
    return false;
  }
  return true;
}

} // namespace

bool Tokenizer::run(const std::vector<std::string> &args, std::string &out,
                    std::string &error) const {
  std::vector<std::string> argv{tool, model};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string err;
  int status = 0;
  if (!spawnAndRead(argv, out, err, status, error))
    return false;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    // Its own message, without its "error: ".
    std::string message = err.substr(0, err.find('\n'));
    if (message.rfind("error: ", 0) == 0)
      message = message.substr(7);
    if (message.empty())
      message = WIFSIGNALED(status)
                    ? tool + " stopped by signal " +
                          std::to_string(WTERMSIG(status)) + " reading " + model
                    : tool + " failed on " + model;
    error = message;
    return false;
  }
  return true;
}

bool Tokenizer::open(const std::string &modelPath, std::string &error) {
  model = modelPath;
  tool = findTool();
  std::string out;
  if (!run({"--info"}, out, error))
    return false;
  std::istringstream lines(out);
  std::string key;
  int64_t value;
  bool pieces = false;
  while (lines >> key >> value) {
    if (key == "pieces") {
      pieceCount = value;
      pieces = true;
    } else if (key == "bos") {
      bosId = value;
    } else if (key == "eos") {
      eosId = value;
    }
  }
  if (!pieces || pieceCount < 1) {
    error = model + ": the tokenizer has no pieces";
    return false;
  }
  return true;
}

bool Tokenizer::encode(const std::string &text, bool bos,
                       std::vector<int64_t> &ids, std::string &error) const {
  std::vector<std::string> args{"--encode", text};
  if (!bos)
    args.push_back("--no-bos");
  std::string out;
  if (!run(args, out, error))
    return false;
  ids.clear();
  std::istringstream items(out);
  std::string item;
  while (std::getline(items, item, ',')) {
    char *end = nullptr;
    long long id = std::strtoll(item.c_str(), &end, 10);
    if (end == item.c_str() || id < 0) {
      error = tool + " gave '" + item + "' for a token id";
      return false;
    }
    ids.push_back(id);
  }
  if (ids.empty())
    error = "the text encodes to no token";
  return !ids.empty();
}

bool Tokenizer::decode(const std::vector<int64_t> &ids, std::string &text,
                       std::string &error) const {
  std::string list;
  for (size_t i = 0; i < ids.size(); ++i)
    list += (i ? "," : "") + std::to_string(ids[i]);
  if (!run({"--decode", list}, text, error))
    return false;
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  return true;
}

} // namespace hetc::run
