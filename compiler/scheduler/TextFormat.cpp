//===- TextFormat.cpp - Textual problem form and schedule printing -------===//

#include "compiler/scheduler/TextFormat.h"

#include <charconv>
#include <cstdio>
#include <unordered_map>

using namespace hetc::sched;

namespace {

using Tokens = std::vector<std::string_view>;

/// A name and the line that defined it.
struct Definition {
  uint32_t id;
  size_t line;
};

/// Reads the textual form one line at a time into a Problem.
class Parser {
public:
  explicit Parser(std::string_view bufferName) : bufferName(bufferName) {}
  Expected<Problem> parse(std::string_view text);

private:
  std::optional<Error> parseLine(const Tokens &tokens);
  std::optional<Error> parseHop(const Tokens &tokens);
  std::optional<Error> parseGroups(const Tokens &tokens);
  std::optional<Error> parseResource(const Tokens &tokens);
  std::optional<Error> parseOp(const Tokens &tokens);
  std::optional<Error> parseTransfer(const Tokens &tokens);
  std::optional<Error> parseDep(const Tokens &tokens);

  Error error(const std::string &message) const {
    return Error{ErrorKind::Parse,
                 std::string(bufferName) + ":" + std::to_string(line) + ": " +
                     message,
                 {}};
  }
  /// Reads tokens[index] as an integer in [min, max], naming it `what`.
  std::optional<Error> parseInt(const Tokens &tokens, size_t index,
                                const char *what, int64_t min, int64_t max,
                                int64_t &value) const;
  std::optional<Error> lookupOp(std::string_view name, OpId &id) const;
  /// Checks that `name` is new and records it.
  std::optional<Error>
  define(std::unordered_map<std::string, Definition> &names, const char *kind,
         std::string_view name, uint32_t id);
  /// Checks that tokens[index] is "->" and something follows it.
  std::optional<Error> expectArrow(const Tokens &tokens, size_t index) const;

  std::string_view bufferName;
  size_t line = 0;
  Problem problem;
  bool seenHop = false, seenGroups = false;
  std::unordered_map<std::string, Definition> ops, resources;
};

} // namespace

static Tokens tokenize(std::string_view text) {
  Tokens tokens;
  text = text.substr(0, text.find('#'));
  size_t at = 0;
  while (at < text.size()) {
    at = text.find_first_not_of(" \t\r", at);
    if (at == std::string_view::npos)
      break;
    size_t end = text.find_first_of(" \t\r", at);
    if (end == std::string_view::npos)
      end = text.size();
    tokens.push_back(text.substr(at, end - at));
    at = end;
  }
  return tokens;
}

std::optional<Error> Parser::parseInt(const Tokens &tokens, size_t index,
                                      const char *what, int64_t min,
                                      int64_t max, int64_t &value) const {
  if (index >= tokens.size())
    return error(std::string("expected ") + what + " after '" +
                 std::string(tokens[index - 1]) + "'");
  std::string_view token = tokens[index];
  auto [end, status] =
      std::from_chars(token.data(), token.data() + token.size(), value);
  if (status != std::errc() || end != token.data() + token.size())
    return error(std::string("expected ") + what + ", found '" +
                 std::string(token) + "'");
  if (value < min || value > max)
    return error(std::string(what) + " " + std::string(token) +
                 " is out of range [" + std::to_string(min) + ", " +
                 std::to_string(max) + "]");
  return std::nullopt;
}

std::optional<Error> Parser::lookupOp(std::string_view name, OpId &id) const {
  auto it = ops.find(std::string(name));
  if (it == ops.end())
    return error("unknown op '" + std::string(name) +
                 "' (ops must be defined before they are used)");
  id = it->second.id;
  return std::nullopt;
}

std::optional<Error>
Parser::define(std::unordered_map<std::string, Definition> &names,
               const char *kind, std::string_view name, uint32_t id) {
  auto [it, added] = names.emplace(std::string(name), Definition{id, line});
  if (added)
    return std::nullopt;
  return error(std::string(kind) + " '" + std::string(name) +
               "' is already defined at line " +
               std::to_string(it->second.line));
}

std::optional<Error> Parser::expectArrow(const Tokens &tokens,
                                         size_t index) const {
  if (index >= tokens.size() || tokens[index] != "->")
    return error("expected '->' after '" + std::string(tokens[index - 1]) +
                 "'");
  if (index + 1 >= tokens.size())
    return error("expected an op after '->'");
  return std::nullopt;
}

std::optional<Error> Parser::parseHop(const Tokens &tokens) {
  if (seenHop)
    return error("'hop' is given twice");
  seenHop = true;
  int64_t hop;
  if (auto failure = parseInt(tokens, 1, "a hop time", 0, kMaxMagnitude, hop))
    return failure;
  if (tokens.size() > 2)
    return error("unexpected '" + std::string(tokens[2]) + "' after the hop");
  StreamConfig config = problem.getStreams();
  config.hopCycles = hop;
  problem.setStreams(config);
  return std::nullopt;
}

std::optional<Error> Parser::parseGroups(const Tokens &tokens) {
  if (seenGroups)
    return error("'groups' is given twice");
  seenGroups = true;
  StreamConfig config = problem.getStreams();
  int64_t groups, width = config.groupWidth;
  if (auto failure = parseInt(tokens, 1, "a group count", 1, 1 << 16, groups))
    return failure;
  if (tokens.size() > 2) {
    if (tokens[2] != "width" || tokens.size() != 4)
      return error("expected 'groups <count> [width <streams>]'");
    if (auto failure = parseInt(tokens, 3, "a group width", 1, 1 << 16, width))
      return failure;
  }
  config.groups = uint32_t(groups);
  config.groupWidth = uint32_t(width);
  problem.setStreams(config);
  return std::nullopt;
}

std::optional<Error> Parser::parseResource(const Tokens &tokens) {
  if (tokens.size() != 3)
    return error("expected 'resource <name> <capacity>'");
  int64_t capacity;
  if (auto failure = parseInt(tokens, 2, "a capacity", 1, UINT32_MAX, capacity))
    return failure;
  ResourceId id =
      problem.addResource(std::string(tokens[1]), uint32_t(capacity));
  return define(resources, "resource", tokens[1], id);
}

std::optional<Error> Parser::parseOp(const Tokens &tokens) {
  if (tokens.size() < 2)
    return error("expected 'op <name> latency <n> [position <p>] "
                 "[repeat <n>] [every <d>] [first <resource>]... "
                 "[uses <resource>...]'");
  int64_t latency = -1, position = kNoPosition, repeat = 1, every = 1;
  std::vector<ResourceId> uses, firstUses;
  size_t index = 2;
  while (index < tokens.size()) {
    std::string_view key = tokens[index];
    if (key == "latency") {
      if (auto failure = parseInt(tokens, index + 1, "a latency", 0,
                                  kMaxMagnitude, latency))
        return failure;
      index += 2;
    } else if (key == "position") {
      if (auto failure = parseInt(tokens, index + 1, "a position", 0,
                                  kMaxMagnitude, position))
        return failure;
      index += 2;
    } else if (key == "repeat") {
      if (auto failure = parseInt(tokens, index + 1, "a repeat count", 1,
                                  kMaxMagnitude, repeat))
        return failure;
      index += 2;
    } else if (key == "every") {
      if (auto failure = parseInt(tokens, index + 1, "a repeat interval", 1,
                                  kMaxMagnitude, every))
        return failure;
      index += 2;
    } else if (key == "first") {
      if (index + 1 == tokens.size())
        return error("expected a resource after 'first'");
      auto it = resources.find(std::string(tokens[index + 1]));
      if (it == resources.end())
        return error("unknown resource '" + std::string(tokens[index + 1]) +
                     "'");
      firstUses.push_back(it->second.id);
      index += 2;
    } else if (key == "uses") {
      if (index + 1 == tokens.size())
        return error("expected a resource after 'uses'");
      for (++index; index < tokens.size(); ++index) {
        auto it = resources.find(std::string(tokens[index]));
        if (it == resources.end())
          return error("unknown resource '" + std::string(tokens[index]) + "'");
        uses.push_back(it->second.id);
      }
    } else {
      return error("unexpected '" + std::string(key) +
                   "' in op; expected 'latency', 'position', 'repeat', "
                   "'every', 'first' or 'uses'");
    }
  }
  if (latency < 0)
    return error("op '" + std::string(tokens[1]) + "' needs a latency");
  OpId id = problem.addOperation(std::string(tokens[1]), latency, position,
                                 std::move(uses));
  problem.setRepeat(id, uint32_t(repeat), every);
  for (ResourceId resource : firstUses)
    problem.addFirstUse(id, resource);
  return define(ops, "op", tokens[1], id);
}

std::optional<Error> Parser::parseTransfer(const Tokens &tokens) {
  OpId producer;
  if (tokens.size() < 2)
    return error("expected 'transfer <producer> -> <consumer>...'");
  if (auto failure = lookupOp(tokens[1], producer))
    return failure;
  if (auto failure = expectArrow(tokens, 2))
    return failure;
  std::vector<OpId> consumers(tokens.size() - 3);
  for (size_t i = 3; i < tokens.size(); ++i)
    if (auto failure = lookupOp(tokens[i], consumers[i - 3]))
      return failure;
  TransferId id = problem.addTransfer(producer, std::move(consumers));
  if (auto failure = problem.checkTransfer(id))
    return error(failure->message);
  return std::nullopt;
}

std::optional<Error> Parser::parseDep(const Tokens &tokens) {
  OpId from, to;
  if (tokens.size() < 2)
    return error("expected 'dep <from> -> <to> [delay <cycles>]'");
  if (auto failure = lookupOp(tokens[1], from))
    return failure;
  if (auto failure = expectArrow(tokens, 2))
    return failure;
  if (auto failure = lookupOp(tokens[3], to))
    return failure;
  int64_t delay = 0;
  if (tokens.size() > 4) {
    if (tokens[4] != "delay" || tokens.size() != 6)
      return error("expected 'dep <from> -> <to> [delay <cycles>]'");
    if (auto failure = parseInt(tokens, 5, "a delay", -kMaxMagnitude,
                                kMaxMagnitude, delay))
      return failure;
  }
  DependenceId id = problem.addDependence(from, to, delay);
  if (auto failure = problem.checkDependence(id))
    return error(failure->message);
  return std::nullopt;
}

std::optional<Error> Parser::parseLine(const Tokens &tokens) {
  std::string_view directive = tokens[0];
  if (directive == "hop")
    return parseHop(tokens);
  if (directive == "groups")
    return parseGroups(tokens);
  if (directive == "resource")
    return parseResource(tokens);
  if (directive == "op")
    return parseOp(tokens);
  if (directive == "transfer")
    return parseTransfer(tokens);
  if (directive == "dep")
    return parseDep(tokens);
  return error("unknown directive '" + std::string(directive) +
               "'; expected hop, groups, resource, op, transfer or dep");
}

Expected<Problem> Parser::parse(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    ++line;
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    Tokens tokens = tokenize(text.substr(at, end - at));
    at = end + 1;
    if (tokens.empty())
      continue;
    if (std::optional<Error> failure = parseLine(tokens))
      return *failure;
  }
  return std::move(problem);
}

Expected<Problem> hetc::sched::parseProblem(std::string_view text,
                                            std::string_view bufferName) {
  return Parser(bufferName).parse(text);
}

static std::string fixed2(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", value);
  return buffer;
}

static std::string opName(const Problem &problem, OpId id) {
  const std::string &name = problem.getOperation(id).name;
  return name.empty() ? "#" + std::to_string(id) : name;
}

void hetc::sched::printSchedule(const Problem &problem,
                                const Schedule &schedule, std::ostream &os) {
  for (OpId op = 0; op < problem.getNumOperations(); ++op)
    os << "op " << opName(problem, op) << " cycle " << schedule.cycles[op]
       << "\n";
  for (TransferId id = 0; id < problem.getNumTransfers(); ++id) {
    const StreamAssignment &stream = schedule.streams[id];
    os << "transfer " << opName(problem, problem.getTransfer(id).producer)
       << " group " << stream.group << " "
       << (stream.direction == Direction::East ? "east" : "west") << "\n";
  }
  for (const ResourceUsage &usage : schedule.utilisation)
    os << "resource " << problem.getResource(usage.resource).name << " uses "
       << usage.uses << " utilisation " << fixed2(usage.utilisation) << "\n";
  os << "length " << schedule.length << "\n";
  os << "bound " << schedule.bound.cycles << " (" << schedule.bound.reason
     << ")\n";
  os << "efficiency " << fixed2(schedule.efficiency) << "\n";
}
