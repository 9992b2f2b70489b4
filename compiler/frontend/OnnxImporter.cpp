//===- OnnxImporter.cpp - ONNX ModelProto to hgraph -------------------===//

#include "compiler/frontend/OnnxImporter.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/frontend/InputValues.h"
#include "compiler/frontend/OnnxOps.h"
#include "compiler/frontend/StaticCache.h"
#include "runtime/io/SafeRead.h"
#include "runtime/io/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <unistd.h>

using namespace mlir;
using namespace hetc;
using namespace hetc::frontend;

namespace {

/// The ONNX default domain's opset the model imports (0 if none).
int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      return id.version();
  return 0;
}

std::string nodeName(const onnx::NodeProto &node, int index) {
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

class Importer {
public:
  Importer(const onnx::ModelProto &model, const std::string &source,
           MLIRContext &context, const ImportOptions &options)
      : model(model), graph(model.graph()), source(source), context(context),
        options(options), builder(&context),
        fileLoc(FileLineColLoc::get(&context, source, 0, 0)) {}

  OwningOpRef<ModuleOp> run();

private:
  LogicalResult checkOperators();
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &info);
  FailureOr<DenseElementsAttr> inputValue(const onnx::ValueInfoProto &info,
                                          const std::string &path);
  LogicalResult importInitializers(const onnx::GraphProto &g);
  /// Imports `nodes` in order; `scope` names the subgraph they belong to
  /// ("" for the main graph) in errors.
  LogicalResult importNodes(
      const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes);
  /// Control flow, by the values its conditions and trip counts fold to
  /// (docs/architecture.md, "Control flow"): If imports the branch its
  /// condition selects; Loop is unrolled.
  FailureOr<SmallVector<Value>> importIf(NodeContext &ctx);
  FailureOr<SmallVector<Value>> importLoop(NodeContext &ctx);
  /// Scan, unrolled over its scan inputs' length (and, opset 8, batch).
  FailureOr<SmallVector<Value>> importScan(NodeContext &ctx);
  /// One Scan over `states` and `scans` (opset 9 semantics).
  FailureOr<SmallVector<Value>> unrollScan(NodeContext &ctx,
                                           const onnx::GraphProto &body,
                                           ArrayRef<Value> states,
                                           ArrayRef<Value> scans);
  /// Imports subgraph `body` inline with its inputs bound to `inputs`;
  /// returns its outputs.
  FailureOr<SmallVector<Value>> inlineGraph(NodeContext &ctx,
                                            const onnx::GraphProto &body,
                                            ArrayRef<Value> inputs);
  /// Lists the unsupported operators of `g` and its subgraphs.
  void listUnsupported(const onnx::GraphProto &g,
                       std::vector<std::string> &problems);
  /// Checks that a node's results are no larger than the chip can hold.
  LogicalResult checkResultSizes(NodeContext &ctx, ArrayRef<Value> results);
  LogicalResult verifyNewOps(NodeContext &ctx, Block *block, Operation *last);
  bool readExternal(const onnx::TensorProto &tensor, std::string &bytes,
                    std::string &error);
  std::unique_ptr<llvm::MemoryBuffer>
  openExternalFile(StringRef relative, const std::string &location,
                   std::string &error);

  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  const std::string &source;
  MLIRContext &context;
  const ImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  /// Open external data files, by their path relative to the model.
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> externalFiles;
};

std::unique_ptr<llvm::MemoryBuffer>
Importer::openExternalFile(StringRef relative, const std::string &location,
                           std::string &error) {
  // The path is checked once symbolic links are resolved: a link inside
  // the model's folder that points out of it is refused like '../'.
  StringRef parent = llvm::sys::path::parent_path(source);
  SmallString<256> folder(parent.empty() ? "." : parent), path(folder);
  llvm::sys::path::append(path, relative);
  SmallString<256> realFolder, realPath;
  if (std::error_code ec = llvm::sys::fs::real_path(path, realPath)) {
    error = "has external data in '" + std::string(path) +
            "', which cannot be opened: " + ec.message();
    return nullptr;
  }
  if (llvm::sys::fs::real_path(folder, realFolder) ||
      !StringRef(realPath).starts_with(realFolder.str().str() + "/")) {
    error = "has external data at '" + location + "', which resolves to '" +
            std::string(realPath) + "', outside the model's folder";
    return nullptr;
  }
  uint64_t size = 0;
  std::string reason;
  int fd = io::openRegularFile(std::string(realPath), size, reason);
  if (fd < 0) {
    error = "has external data in '" + std::string(path) + "', which " + reason;
    return nullptr;
  }
  // Mapped, not read: only the regions tensors use are touched, once.
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      llvm::sys::fs::convertFDToNativeFile(fd), realPath, size,
      /*RequiresNullTerminator=*/false);
  ::close(fd);
  if (!buffer) {
    error = "has external data in '" + std::string(path) +
            "', which cannot be read: " + buffer.getError().message();
    return nullptr;
  }
  if (options.filesRead)
    options.filesRead->push_back(std::string(realPath));
  return std::move(*buffer);
}

bool Importer::readExternal(const onnx::TensorProto &tensor,
                            std::string &bytes, std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t v;
      if (StringRef(entry.value()).getAsInteger(10, v) || v < 0) {
        error = "has external data " + entry.key() + " '" + entry.value() +
                "', which is not a non-negative integer";
        return false;
      }
      (entry.key() == "offset" ? offset : length) = v;
    }
  }
  // The data must lie in the model's folder or below it: a model file must
  // not make the compiler read arbitrary files.
  SmallString<256> normalized(location);
  llvm::sys::path::remove_dots(normalized, /*remove_dot_dot=*/true);
  bool escapes = location.empty() || llvm::sys::path::is_absolute(location) ||
                 llvm::sys::path::has_root_name(location) ||
                 StringRef(normalized).starts_with("..");
  if (escapes) {
    error = "has external data at '" + location +
            "', which is not a path inside the model's folder";
    return false;
  }
  auto it = externalFiles.find(normalized);
  if (it == externalFiles.end()) {
    std::unique_ptr<llvm::MemoryBuffer> buffer =
        openExternalFile(normalized, location, error);
    if (!buffer)
      return false;
    it = externalFiles.try_emplace(normalized, std::move(buffer)).first;
  }
  StringRef data = it->second->getBuffer();
  if (length < 0)
    length = int64_t(data.size()) - offset;
  if (offset > int64_t(data.size()) || length > int64_t(data.size()) - offset) {
    error = "has external data at offset " + std::to_string(offset) +
            " of length " + std::to_string(length) + ", beyond the end of '" +
            location + "' (" + std::to_string(data.size()) + " bytes)";
    return false;
  }
  bytes.assign(data.data() + offset, length);
  return true;
}

/// Operators the importer handles itself: control flow, whose subgraphs it
/// imports.
bool isControlFlow(const onnx::NodeProto &node) {
  return (node.domain().empty() || node.domain() == "ai.onnx") &&
         (node.op_type() == "If" || node.op_type() == "Loop" ||
          node.op_type() == "Scan");
}

/// Why hetc does not compile the ONNX operator `opType`, where a user can
/// act on it; empty for operators simply not imported yet.
StringRef unsupportedReason(StringRef opType) {
  if (llvm::is_contained({"Bernoulli", "RandomUniform", "RandomUniformLike",
                          "RandomNormal", "RandomNormalLike", "Multinomial"},
                         opType))
    return "its values come from a random generator that ONNX does not pin, "
           "so no compiled program reproduces them; fix the value with "
           "--input-value or sample on the host";
  if (llvm::is_contained({"NonMaxSuppression", "NonZero"}, opType))
    return "its output's length depends on the values at run time, which a "
           "static schedule cannot hold; run it on the host on the model's "
           "outputs";
  if (opType == "DeformConv")
    return "it samples its input at offsets computed at run time for every "
           "output position and kernel tap, which hetc does not import yet; "
           "GridSample (a grid of the taps' positions) followed by a Conv "
           "whose strides equal its kernel computes the same";
  if (llvm::is_contained({"TfIdfVectorizer", "StringNormalizer", "StringSplit",
                          "StringConcat", "RegexFullMatch", "ImageDecoder"},
                         opType))
    return "it works on strings, n-grams or encoded images, which the chip "
           "does not hold; run it on the host before the model";
  if (opType.starts_with("Sequence") || opType.starts_with("Optional") ||
      llvm::is_contained({"SplitToSequence", "ConcatFromSequence"}, opType))
    return "sequences and optionals are not tensors; hetc compiles graphs of "
           "tensors";
  return "";
}

void Importer::listUnsupported(const onnx::GraphProto &g,
                               std::vector<std::string> &problems) {
  for (auto [index, node] : llvm::enumerate(g.node())) {
    std::string where = "node '" + nodeName(node, index) + "' (" +
                        node.op_type() + ", domain '" +
                        (node.domain().empty() ? "ai.onnx" : node.domain()) +
                        "', opset " + std::to_string(opset) + ")";
    bool knownDomain = node.domain().empty() || node.domain() == "ai.onnx" ||
                       node.domain() == "ai.onnx.preview" ||
                       node.domain() == "ai.onnx.preview.training";
    if (!knownDomain)
      problems.push_back(where + ": operators of this domain are not supported");
    else if (!isControlFlow(node) &&
             !lookupImportRule(node.domain(), node.op_type())) {
      StringRef reason = unsupportedReason(node.op_type());
      problems.push_back(where + ": operator is not supported" +
                         (reason.empty() ? "" : ": " + reason.str()));
    }
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.has_g())
        listUnsupported(attr.g(), problems);
  }
}

LogicalResult Importer::checkOperators() {
  // Gather every unsupported operator before failing, so that one run
  // tells the user all that stands in the way.
  std::vector<std::string> problems;
  listUnsupported(graph, problems);
  if (problems.empty())
    return success();
  InFlightDiagnostic diag = emitError(fileLoc)
                            << problems.size()
                            << " unsupported operator"
                            << (problems.size() == 1 ? "" : "s") << ":";
  for (const std::string &p : problems)
    diag << "\n  " << p;
  return failure();
}

FailureOr<RankedTensorType>
Importer::inputType(const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type())
    return emitError(fileLoc) << "graph input '" << info.name()
                              << "' is not a tensor";
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type element = elementTypeOf(tensor.elem_type(), &context);
  if (!element)
    return emitError(fileLoc)
           << "graph input '" << info.name() << "' has element type "
           << dataTypeName(tensor.elem_type())
           << ", which hetc does not support";
  if (!tensor.has_shape())
    return emitError(fileLoc) << "graph input '" << info.name()
                              << "' has no shape; hetc needs static shapes";
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(tensor.shape().dim())) {
    // Empty inputs (a zero dimension) are checked after the import: only
    // CastLike's target_type input, whose values nothing reads, may be one.
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    if (dim.has_dim_param()) {
      auto it = options.dims.find(dim.dim_param());
      if (it != options.dims.end()) {
        shape.push_back(it->second);
        continue;
      }
      return emitError(fileLoc)
             << "graph input '" << info.name() << "' dimension " << i
             << " is symbolic ('" << dim.dim_param() << "'); pin it with --dim "
             << dim.dim_param() << "=N";
    }
    return emitError(fileLoc) << "graph input '" << info.name()
                              << "' dimension " << i
                              << " is unknown or not positive";
  }
  std::string why;
  if (!boundedElementCount(shape, options.maxElements, why))
    return emitError(fileLoc)
           << "graph input '" << info.name() << "' of shape "
           << io::shapeString({shape.begin(), shape.end()}) << " " << why;
  return RankedTensorType::get(shape, element);
}

/// The value `--input-value` gives the graph input `info`: it must have the
/// input's element type and a shape the declared one admits (symbolic and
/// unknown dimensions take the value's).
FailureOr<DenseElementsAttr>
Importer::inputValue(const onnx::ValueInfoProto &info,
                     const std::string &path) {
  auto fail = [&]() {
    return emitError(fileLoc) << "--input-value " << info.name() << "=" << path
                              << ": ";
  };
  std::string error;
  FailureOr<DenseElementsAttr> attr = readInputValue(path, &context, error);
  if (failed(attr))
    return fail() << "the file " << error;
  if (options.filesRead)
    options.filesRead->push_back(path);
  if (!info.type().has_tensor_type())
    return fail() << "graph input '" << info.name() << "' is not a tensor";
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  auto type = cast<RankedTensorType>(attr->getType());
  Type declared = elementTypeOf(tensor.elem_type(), &context);
  if (declared && declared != type.getElementType())
    return fail() << "the file holds " << type.getElementType()
                  << " elements, graph input '" << info.name() << "' is "
                  << dataTypeName(tensor.elem_type());
  if (tensor.has_shape()) {
    const auto &dims = tensor.shape().dim();
    bool fits = dims.size() == type.getRank();
    for (int i = 0; fits && i < dims.size(); ++i)
      fits = !dims[i].has_dim_value() ||
             dims[i].dim_value() == type.getDimSize(i);
    if (!fits) {
      std::string declaredShape;
      llvm::raw_string_ostream os(declaredShape);
      for (auto [i, dim] : llvm::enumerate(dims))
        os << (i ? "x" : "")
           << (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                   : std::string("?"));
      return fail() << "the file holds a tensor of shape " << type
                    << ", graph input '" << info.name() << "' has shape ["
                    << declaredShape << "]";
    }
  }
  return attr;
}

LogicalResult Importer::importInitializers(const onnx::GraphProto &g) {
  for (const onnx::TensorProto &init : g.initializer()) {
    // An input's default gives way to the value given for it.
    if (options.inputValues.count(init.name()))
      continue;
    std::string error;
    FailureOr<DenseElementsAttr> attr = tensorToAttr(
        init, &context, error,
        [this](const onnx::TensorProto &t, std::string &bytes,
               std::string &err) { return readExternal(t, bytes, err); },
        options.maxElements);
    if (failed(attr))
      return emitError(fileLoc) << "initializer '" << init.name() << "' "
                                << error;
    values[init.name()] = hgraph::ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(init.name())), *attr);
  }
  return success();
}

LogicalResult Importer::checkResultSizes(NodeContext &ctx,
                                         ArrayRef<Value> results) {
  for (auto [i, result] : llvm::enumerate(results)) {
    auto type = dyn_cast_or_null<RankedTensorType>(result ? result.getType()
                                                          : Type());
    if (!type)
      continue;
    std::string why;
    if (!boundedElementCount(type.getShape(), options.maxElements, why))
      return ctx.error() << "result " << i << " of type " << type << " "
                         << why;
  }
  return success();
}

/// Verifies the ops a node's rule created (those after `last` in
/// `block`), so that a rule which trusted a shape or attribute of the file
/// too far stops at its node instead of reaching a pass with an op that
/// breaks its own invariants.
LogicalResult Importer::verifyNewOps(NodeContext &ctx, Block *block,
                                     Operation *last) {
  auto it = last ? std::next(last->getIterator()) : block->begin();
  for (Operation &op : llvm::make_range(it, block->end()))
    if (failed(mlir::verify(&op, /*verifyRecursively=*/true)))
      return ctx.error() << "its inputs do not fit the operator (see the "
                            "error above)";
  return success();
}

LogicalResult Importer::importNodes(
    const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes) {
  // A node that fails is reported and its outputs marked, so that every
  // problem of the model is listed in one run; nodes reading a marked value
  // are skipped without a second message.
  llvm::StringSet<> failedValues;
  // Values read only as a Conv's weight: their DequantizeLinear of a
  // constant stays unfolded, so that hetc-hgraph-fuse-quantized sees the
  // int8 weight of a quantised convolution (and folds it otherwise).
  llvm::StringMap<bool> convWeightOnly;
  for (const onnx::NodeProto &node : nodes)
    for (auto [i, input] : llvm::enumerate(node.input())) {
      bool weight = node.op_type() == "Conv" && node.domain().empty() && i == 1;
      auto [it, inserted] = convWeightOnly.try_emplace(input, weight);
      if (!inserted)
        it->second &= weight;
    }
  bool ok = true;
  for (auto [index, node] : llvm::enumerate(nodes)) {
    std::string name = nodeName(node, index);
    Location loc = NameLoc::get(builder.getStringAttr(name));
    NodeContext ctx{builder, loc, node, name, opset, {}};
    auto inlineAttribute = [&](const onnx::GraphProto &body,
                               ArrayRef<Value> inputs) {
      return inlineGraph(ctx, body, inputs);
    };
    ctx.inlineGraph = inlineAttribute;
    ctx.maxElements = options.maxElements;
    auto markFailed = [&] {
      ok = false;
      for (const std::string &output : node.output())
        failedValues.insert(output);
    };
    bool skip = false;
    for (const std::string &input : node.input()) {
      if (input.empty()) {
        ctx.inputs.push_back(Value());
        continue;
      }
      if (failedValues.contains(input)) {
        skip = true;
        break;
      }
      auto it = values.find(input);
      if (it == values.end()) {
        emitError(loc) << node.op_type() << " (opset " << opset
                       << "): input '" << input
                       << "' is not produced by any earlier node, "
                          "initializer or graph input";
        skip = true;
        ok = false;
        break;
      }
      ctx.inputs.push_back(it->second);
    }
    ImportRule rule = lookupImportRule(node.domain(), node.op_type());
    bool control = isControlFlow(node);
    if (skip || (!rule && !control)) {
      // Unsupported operators were listed by checkOperators.
      markFailed();
      continue;
    }
    // Trailing missing optional inputs do not count.
    while (!ctx.inputs.empty() && !ctx.inputs.back())
      ctx.inputs.pop_back();
    Block *block = builder.getInsertionBlock();
    Operation *last = block->empty() ? nullptr : &block->back();
    FailureOr<SmallVector<Value>> results =
        !control                     ? rule(ctx)
        : node.op_type() == "If"     ? importIf(ctx)
        : node.op_type() == "Loop"   ? importLoop(ctx)
                                     : importScan(ctx);
    if (failed(results)) {
      markFailed();
      continue;
    }
    if (failed(checkResultSizes(ctx, *results)) ||
        failed(verifyNewOps(ctx, block, last))) {
      markFailed();
      continue;
    }
    // A node of constants is evaluated now where no folder resolved it
    // (within the evaluation's limits), so that the nodes after it see
    // constants too.
    bool constantInputs = !control && !ctx.inputs.empty() &&
                          llvm::all_of(ctx.inputs, [](Value v) {
                            return !v || matchPattern(v, m_Constant());
                          });
    if (node.op_type() == "DequantizeLinear" && node.output_size() == 1 &&
        convWeightOnly.lookup(node.output(0)) &&
        getElementTypeOrSelf(ctx.inputs[0].getType()).isInteger(8))
      constantInputs = false;
    if (constantInputs)
      for (Value &result : *results)
        if (result && !matchPattern(result, m_Constant()))
          if (DenseElementsAttr value = constantValue(result))
            result = hgraph::ConstantOp::create(builder, loc, value);
    for (auto [i, output] : llvm::enumerate(node.output())) {
      if (output.empty())
        continue;
      if (i >= results->size()) {
        emitError(loc) << node.op_type() << " (opset " << opset
                       << "): output " << i << " ('" << output
                       << "') is not supported";
        markFailed();
        break;
      }
      values[output] = (*results)[i];
    }
  }
  return success(ok);
}

/// The most iterations a Loop is unrolled to.
constexpr int64_t kMaxUnrolledIterations = 4096;

FailureOr<SmallVector<Value>>
Importer::inlineGraph(NodeContext &ctx, const onnx::GraphProto &body,
                      ArrayRef<Value> inputs) {
  if (body.input_size() != int(inputs.size()))
    return ctx.error() << "its subgraph '" << body.name() << "' takes "
                       << body.input_size() << " inputs, but "
                       << inputs.size() << " are bound to it";
  for (auto [info, value] : llvm::zip(body.input(), inputs))
    values[info.name()] = value;
  if (failed(importInitializers(body)) || failed(importNodes(body.node())))
    return failure();
  SmallVector<Value> outputs;
  for (const onnx::ValueInfoProto &out : body.output()) {
    auto it = values.find(out.name());
    if (it == values.end())
      return ctx.error() << "output '" << out.name() << "' of its subgraph '"
                         << body.name() << "' is not produced";
    outputs.push_back(it->second);
  }
  return outputs;
}

/// The value of a scalar integer or boolean constant `v`, if it is one.
static std::optional<int64_t> foldedScalar(Value v) {
  std::optional<SmallVector<int64_t>> ints = v ? constantInts(v) : std::nullopt;
  if (!ints || ints->size() != 1)
    return std::nullopt;
  return (*ints)[0];
}

FailureOr<SmallVector<Value>> Importer::importIf(NodeContext &ctx) {
  if (failed(expectInputs(ctx, 1, 1)))
    return failure();
  std::optional<int64_t> cond = foldedScalar(ctx.inputs[0]);
  if (!cond)
    return ctx.error() << "the condition must be a constant (an initializer, "
                          "a Constant node, a computation on them that "
                          "folds, or an input given with --input-value): a "
                          "static schedule runs one branch, chosen at "
                          "compile time"
                       << whyNotEvaluated(ctx.inputs[0]);
  const onnx::AttributeProto *branch =
      ctx.attr(*cond ? "then_branch" : "else_branch");
  if (!branch || !branch->has_g())
    return ctx.error() << "attribute '"
                       << (*cond ? "then_branch" : "else_branch")
                       << "' must be a graph";
  return inlineGraph(ctx, branch->g(), {});
}

FailureOr<SmallVector<Value>> Importer::importLoop(NodeContext &ctx) {
  const onnx::AttributeProto *body = ctx.attr("body");
  if (!body || !body->has_g())
    return ctx.error() << "attribute 'body' must be a graph";
  const onnx::GraphProto &graph = body->g();
  if (ctx.inputs.size() < 2 && graph.input_size() < 2)
    return ctx.error() << "needs a body of at least two inputs";
  std::optional<int64_t> trips = foldedScalar(ctx.input(0));
  std::optional<int64_t> cond =
      ctx.input(1) ? foldedScalar(ctx.input(1)) : std::optional<int64_t>(1);
  if ((ctx.input(0) && !trips) || !cond)
    return ctx.error() << "the trip count and the condition must be "
                          "constants (initializers, Constant nodes, "
                          "computations on them that fold, or inputs given "
                          "with --input-value): the loop is unrolled at "
                          "compile time";
  SmallVector<Value> carried(ctx.inputs.begin() + std::min<size_t>(2, ctx.inputs.size()),
                             ctx.inputs.end());
  if (graph.input_size() != int(carried.size()) + 2 ||
      graph.output_size() < int(carried.size()) + 1)
    return ctx.error() << "its body takes " << graph.input_size()
                       << " inputs and gives " << graph.output_size()
                       << " outputs, but the loop carries " << carried.size()
                       << " values";
  int64_t scans = graph.output_size() - 1 - int64_t(carried.size());
  SmallVector<SmallVector<Value>> scanned(scans);
  auto i1 = RankedTensorType::get({}, ctx.builder.getI1Type());
  auto i64 = RankedTensorType::get({}, ctx.builder.getI64Type());
  int64_t i = 0;
  for (; (!trips || i < *trips) && *cond; ++i) {
    if (i == kMaxUnrolledIterations)
      return ctx.error() << "it runs more than " << kMaxUnrolledIterations
                         << " iterations, the most hetc unrolls";
    SmallVector<Value> inputs{
        hgraph::ConstantOp::create(ctx.builder, ctx.loc,
                                   DenseElementsAttr::get(i64, i)),
        hgraph::ConstantOp::create(ctx.builder, ctx.loc,
                                   DenseElementsAttr::get(i1, true))};
    llvm::append_range(inputs, carried);
    FailureOr<SmallVector<Value>> outputs = inlineGraph(ctx, graph, inputs);
    if (failed(outputs))
      return failure();
    cond = foldedScalar((*outputs)[0]);
    if (!cond)
      return ctx.error() << "its body's condition does not fold to a "
                            "constant in iteration "
                         << i << "; the loop is unrolled at compile time";
    for (size_t k = 0; k < carried.size(); ++k)
      carried[k] = (*outputs)[1 + k];
    for (int64_t k = 0; k < scans; ++k)
      scanned[k].push_back((*outputs)[1 + carried.size() + k]);
  }
  SmallVector<Value> results(carried);
  for (SmallVector<Value> &parts : scanned) {
    if (parts.empty())
      return ctx.error() << "it runs no iteration, so its scan outputs have "
                            "no shape";
    RankedTensorType part = tensorType(parts.front());
    SmallVector<int64_t> one{1}, all{int64_t(parts.size())};
    llvm::append_range(one, part.getShape());
    llvm::append_range(all, part.getShape());
    SmallVector<Value> rows;
    for (Value p : parts) {
      if (tensorType(p) != part)
        return ctx.error() << "its scan output changes shape from " << part
                           << " to " << tensorType(p);
      rows.push_back(ctx.create<hgraph::ReshapeOp>(
          RankedTensorType::get(one, part.getElementType()), p));
    }
    results.push_back(ctx.create<hgraph::ConcatOp>(
        RankedTensorType::get(all, part.getElementType()), rows,
        ctx.builder.getI64IntegerAttr(0)));
  }
  return results;
}

/// `v` with dimension `axis` (of size 1) dropped, or inserted.
static Value dropAxis(NodeContext &ctx, Value v, int64_t axis) {
  SmallVector<int64_t> shape(tensorType(v).getShape());
  shape.erase(shape.begin() + axis);
  return reshapeTo(ctx, v, shape);
}
static Value insertAxis(NodeContext &ctx, Value v, int64_t axis) {
  SmallVector<int64_t> shape(tensorType(v).getShape());
  shape.insert(shape.begin() + axis, 1);
  return reshapeTo(ctx, v, shape);
}
/// Element `index` of `v` along `axis`, that axis dropped.
static Value takeAlong(NodeContext &ctx, Value v, int64_t axis,
                      int64_t index) {
  RankedTensorType type = tensorType(v);
  SmallVector<int64_t> shape(type.getShape()), starts(type.getRank(), 0),
      steps(type.getRank(), 1);
  shape[axis] = 1;
  starts[axis] = index;
  Value one = ctx.create<hgraph::SliceOp>(
      RankedTensorType::get(shape, type.getElementType()), v,
      ctx.builder.getDenseI64ArrayAttr(starts),
      ctx.builder.getDenseI64ArrayAttr(steps));
  return dropAxis(ctx, one, axis);
}
/// `parts` (of one shape) stacked along a new dimension `axis`.
static FailureOr<Value> stackAlong(NodeContext &ctx, ArrayRef<Value> parts,
                                   int64_t axis) {
  RankedTensorType part = tensorType(parts.front());
  SmallVector<Value> pieces;
  for (Value p : parts) {
    if (tensorType(p) != part)
      return FailureOr<Value>(ctx.error() << "a scan output changes shape "
                                          << "from " << part << " to "
                                          << tensorType(p));
    pieces.push_back(insertAxis(ctx, p, axis));
  }
  SmallVector<int64_t> shape(part.getShape());
  shape.insert(shape.begin() + axis, int64_t(parts.size()));
  return ctx.create<hgraph::ConcatOp>(
      RankedTensorType::get(shape, part.getElementType()), pieces,
      ctx.builder.getI64IntegerAttr(axis));
}

FailureOr<SmallVector<Value>>
Importer::unrollScan(NodeContext &ctx, const onnx::GraphProto &body,
                     ArrayRef<Value> states, ArrayRef<Value> scans) {
  auto axesOf = [&](StringRef name, size_t count,
                    ArrayRef<Value> values) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> axes =
        ctx.intsAttr(name).value_or(SmallVector<int64_t>(count, 0));
    if (axes.size() != count)
      return FailureOr<SmallVector<int64_t>>(
          ctx.error() << "'" << name << "' has " << axes.size()
                      << " entries, for " << count << " values");
    for (size_t k = 0; k < axes.size(); ++k) {
      FailureOr<int64_t> axis =
          normalizeAxis(ctx, axes[k], tensorType(values[k]).getRank());
      if (failed(axis))
        return failure();
      axes[k] = *axis;
    }
    return axes;
  };
  FailureOr<SmallVector<int64_t>> inAxes =
      axesOf("scan_input_axes", scans.size(), scans);
  SmallVector<int64_t> inDirections =
      ctx.intsAttr("scan_input_directions")
          .value_or(SmallVector<int64_t>(scans.size(), 0));
  if (failed(inAxes) || inDirections.size() != scans.size())
    return ctx.error() << "needs one scan_input_axes and "
                          "scan_input_directions entry per scan input";
  int64_t length = -1;
  for (auto [v, a] : llvm::zip(scans, *inAxes)) {
    int64_t n = tensorType(v).getDimSize(a);
    if (length >= 0 && n != length)
      return ctx.error() << "its scan inputs have lengths " << length
                         << " and " << n;
    length = n;
  }
  if (length < 1)
    return ctx.error() << "it scans no element, so its outputs have no shape";
  if (length > kMaxUnrolledIterations)
    return ctx.error() << "it scans " << length << " elements, more than "
                       << kMaxUnrolledIterations << ", the most hetc unrolls";
  int64_t outs = body.output_size() - int64_t(states.size());
  if (outs < 0)
    return ctx.error() << "its body gives fewer outputs than its states";
  SmallVector<Value> carried(states);
  SmallVector<SmallVector<Value>> scanned(outs);
  for (int64_t t = 0; t < length; ++t) {
    SmallVector<Value> inputs(carried);
    for (auto [k, v] : llvm::enumerate(scans))
      inputs.push_back(takeAlong(ctx, v, (*inAxes)[k],
                                 inDirections[k] ? length - 1 - t : t));
    FailureOr<SmallVector<Value>> outputs = inlineGraph(ctx, body, inputs);
    if (failed(outputs))
      return failure();
    for (size_t k = 0; k < carried.size(); ++k)
      carried[k] = (*outputs)[k];
    for (int64_t k = 0; k < outs; ++k)
      scanned[k].push_back((*outputs)[carried.size() + k]);
  }
  SmallVector<int64_t> outDirections =
      ctx.intsAttr("scan_output_directions")
          .value_or(SmallVector<int64_t>(outs, 0));
  SmallVector<int64_t> outAxes =
      ctx.intsAttr("scan_output_axes").value_or(SmallVector<int64_t>(outs, 0));
  if (int64_t(outDirections.size()) != outs || int64_t(outAxes.size()) != outs)
    return ctx.error() << "needs one scan_output_axes and "
                          "scan_output_directions entry per scan output";
  SmallVector<Value> results(carried);
  for (int64_t k = 0; k < outs; ++k) {
    if (outDirections[k])
      std::reverse(scanned[k].begin(), scanned[k].end());
    FailureOr<int64_t> axis = normalizeAxis(
        ctx, outAxes[k], tensorType(scanned[k].front()).getRank() + 1);
    if (failed(axis))
      return failure();
    FailureOr<Value> stacked = stackAlong(ctx, scanned[k], *axis);
    if (failed(stacked))
      return failure();
    results.push_back(*stacked);
  }
  return results;
}

FailureOr<SmallVector<Value>> Importer::importScan(NodeContext &ctx) {
  const onnx::AttributeProto *body = ctx.attr("body");
  if (!body || !body->has_g())
    return ctx.error() << "attribute 'body' must be a graph";
  int64_t scans = ctx.intAttr("num_scan_inputs", 0);
  // Opset 8 starts with an optional sequence_lens and has a batch axis.
  bool batched = ctx.opset < 9;
  SmallVector<Value> inputs(ctx.inputs.begin() + (batched ? 1 : 0),
                            ctx.inputs.end());
  if (batched && ctx.input(0))
    return ctx.error() << "sequence_lens is not supported: every sequence "
                          "runs its whole length";
  if (scans < 1 || scans > int64_t(inputs.size()))
    return ctx.error() << "num_scan_inputs " << scans << " is not in [1, "
                       << inputs.size() << "]";
  for (Value v : inputs)
    if (!v)
      return ctx.error() << "its states and scan inputs must all be given";
  ArrayRef<Value> states = ArrayRef<Value>(inputs).drop_back(scans);
  ArrayRef<Value> scanIns = ArrayRef<Value>(inputs).take_back(scans);
  if (!batched)
    return unrollScan(ctx, body->g(), states, scanIns);
  // Opset 8: each batch element scans along axis 1 (axis 0 once the batch
  // is taken); the results are stacked along the batch.
  int64_t batch = tensorType(inputs.front()).getDimSize(0);
  SmallVector<SmallVector<Value>> perBatch;
  for (int64_t b = 0; b < batch; ++b) {
    SmallVector<Value> s, x;
    for (Value v : states)
      s.push_back(takeAlong(ctx, v, 0, b));
    for (Value v : scanIns)
      x.push_back(takeAlong(ctx, v, 0, b));
    FailureOr<SmallVector<Value>> outputs = unrollScan(ctx, body->g(), s, x);
    if (failed(outputs))
      return failure();
    perBatch.push_back(*outputs);
  }
  SmallVector<Value> results;
  for (size_t k = 0; k < perBatch.front().size(); ++k) {
    SmallVector<Value> parts;
    for (SmallVector<Value> &outputs : perBatch)
      parts.push_back(outputs[k]);
    FailureOr<Value> stacked = stackAlong(ctx, parts, 0);
    if (failed(stacked))
      return failure();
    results.push_back(*stacked);
  }
  return results;
}

OwningOpRef<ModuleOp> Importer::run() {
  context.loadDialect<hgraph::HGraphDialect, func::FuncDialect>();
  ConstantEvaluation evaluation(options.evaluateConstants);
  opset = defaultOpset(model);
  // A model of training operators alone may import no default opset.
  bool usesDefaultDomain = llvm::any_of(graph.node(), [](const auto &node) {
    return node.domain().empty() || node.domain() == "ai.onnx";
  });
  if (opset == 0 && usesDefaultDomain) {
    emitError(fileLoc) << "model imports no opset of the default ONNX domain";
    return nullptr;
  }
  if (opset < 0) {
    emitError(fileLoc) << "model imports opset " << opset
                       << " of the default ONNX domain; opsets start at 1";
    return nullptr;
  }
  // Unsupported operators are listed first; the import goes on so that
  // problems with the supported nodes' attributes are reported as well.
  bool operatorsOk = succeeded(checkOperators());

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  SmallVector<std::pair<std::string, DenseElementsAttr>> fixed;
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &init : graph.initializer())
    initializers.insert(init.name());
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &input : graph.input())
    inputNames.insert(input.name());
  for (const auto &[name, path] : options.inputValues)
    if (!inputNames.contains(name)) {
      emitError(fileLoc) << "--input-value names '" << name
                         << "', which is not an input of the graph";
      return nullptr;
    }
  for (const onnx::ValueInfoProto &input : graph.input()) {
    auto given = options.inputValues.find(input.name());
    if (given != options.inputValues.end()) {
      FailureOr<DenseElementsAttr> value = inputValue(input, given->second);
      if (failed(value))
        return nullptr;
      fixed.emplace_back(input.name(), *value);
      continue;
    }
    // Inputs that are also initializers are constants with a default.
    if (initializers.contains(input.name()))
      continue;
    FailureOr<RankedTensorType> type = inputType(input);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    args.push_back(&input);
  }

  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "main",
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  for (auto [i, input] : llvm::enumerate(args)) {
    func.setArgAttr(i, hgraph::kNameAttr, builder.getStringAttr(input->name()));
    auto type = cast<RankedTensorType>(argTypes[i]);
    // An empty input holds no value to read: its readers see a constant of
    // its shape, which folds (a reduction over it gives the reduction's
    // identity). It stays an input of the program.
    values[input->name()] =
        type.getNumElements() == 0
            ? Value(hgraph::ConstantOp::create(
                  builder, NameLoc::get(builder.getStringAttr(input->name())),
                  DenseElementsAttr::get(type, ArrayRef<Attribute>())))
            : Value(body->getArgument(i));
  }
  for (const auto &[name, value] : fixed)
    values[name] = hgraph::ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(name)), value);
  if (failed(importInitializers(graph)) || failed(importNodes(graph.node())) ||
      !operatorsOk)
    return nullptr;
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    auto it = values.find(output.name());
    if (it == values.end()) {
      emitError(fileLoc) << "graph output '" << output.name()
                         << "' is not produced by any node";
      return nullptr;
    }
    results.push_back(it->second);
  }
  func::ReturnOp::create(builder, fileLoc, results);
  func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, hgraph::kNameAttr,
                       builder.getStringAttr(output.name()));
  return module;
}

} // namespace

OwningOpRef<ModuleOp>
hetc::frontend::importOnnxModel(const onnx::ModelProto &model,
                                const std::string &source,
                                MLIRContext &context,
                                const ImportOptions &options) {
  if (options.maxContext <= 0 && options.maxBatch <= 0 && !options.prefill)
    return Importer(model, source, context, options).run();
  // The rewrites work on a copy, and a bucket's length on the options'.
  onnx::ModelProto copy(model);
  ImportOptions adjusted(options);
  std::string error;
  bool step = !options.prefill &&
              (options.maxContext > 0 || options.maxBatch > 0);
  bool rewritten =
      (!step ||
       pinDecodeStepDims(copy, options.maxBatch, adjusted.dims, error)) &&
      (options.maxContext <= 0 ||
       makeCacheStatic(copy, options.maxContext, error)) &&
      (!options.prefill ||
       pinPrefillDims(copy, options.prefillTokens, adjusted.dims, error)) &&
      (!options.prefill || !isPastless(copy, options.prefillCaches) ||
       writeCachesInPlace(copy, options.prefillCaches, error));
  if (!rewritten) {
    emitError(FileLineColLoc::get(&context, source, 0, 0)) << error;
    return nullptr;
  }
  return Importer(copy, source, context, adjusted).run();
}

OwningOpRef<ModuleOp>
hetc::frontend::importOnnxFile(const std::string &path, MLIRContext &context,
                               const ImportOptions &options) {
  Location loc = FileLineColLoc::get(&context, path, 0, 0);
  uint64_t size = 0;
  std::string reason;
  int fd = io::openRegularFile(path, size, reason);
  if (fd < 0) {
    emitError(loc) << "ONNX model " << reason;
    return nullptr;
  }
  if (size > uint64_t(INT32_MAX)) {
    ::close(fd);
    emitError(loc) << "ONNX model of " << size
                   << " bytes is larger than protobuf can parse (2 GiB); "
                      "save its weights as external data";
    return nullptr;
  }
  if (options.filesRead)
    options.filesRead->push_back(path);
  onnx::ModelProto model;
  bool parsed;
  {
    google::protobuf::io::FileInputStream file(fd);
    google::protobuf::io::CodedInputStream coded(&file);
    // Models up to 2 GiB; protobuf's default limit is 64 MiB.
    coded.SetTotalBytesLimit(INT32_MAX);
    parsed = model.ParseFromCodedStream(&coded) &&
             coded.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!parsed) {
    emitError(loc) << "not a valid ONNX model (the protobuf cannot be parsed; "
                      "is the file truncated or of another format?)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(loc) << "ONNX model has no graph";
    return nullptr;
  }
  return importOnnxModel(model, path, context, options);
}
