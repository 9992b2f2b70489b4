//===- OnnxImporter.cpp - ONNX ModelProto to hgraph -------------------===//

#include "compiler/frontend/OnnxImporter.h"

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/frontend/InputValues.h"
#include "compiler/frontend/OnnxOps.h"
#include "runtime/io/SafeRead.h"
#include "runtime/io/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/SmallString.h"
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
  LogicalResult importInitializers();
  LogicalResult importNodes();
  /// Checks that a node's results are no larger than the chip can hold.
  LogicalResult checkResultSizes(NodeContext &ctx, ArrayRef<Value> results);
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

LogicalResult Importer::checkOperators() {
  // Gather every unsupported operator before failing, so that one run
  // tells the user all that stands in the way.
  std::vector<std::string> problems;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string where = "node '" + nodeName(node, index) + "' (" +
                        node.op_type() + ", domain '" +
                        (node.domain().empty() ? "ai.onnx" : node.domain()) +
                        "', opset " + std::to_string(opset) + ")";
    bool knownDomain = node.domain().empty() || node.domain() == "ai.onnx" ||
                       node.domain() == "ai.onnx.preview.training";
    if (!knownDomain)
      problems.push_back(where + ": operators of this domain are not supported");
    else if (!lookupImportRule(node.domain(), node.op_type()))
      problems.push_back(where + ": operator is not supported");
  }
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

LogicalResult Importer::importInitializers() {
  for (const onnx::TensorProto &init : graph.initializer()) {
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

LogicalResult Importer::importNodes() {
  // A node that fails is reported and its outputs marked, so that every
  // problem of the model is listed in one run; nodes reading a marked value
  // are skipped without a second message.
  llvm::StringSet<> failedValues;
  bool ok = true;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    std::string name = nodeName(node, index);
    Location loc = NameLoc::get(builder.getStringAttr(name));
    NodeContext ctx{builder, loc, node, name, opset, {}};
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
    if (skip || !rule) {
      // Unsupported operators were listed by checkOperators.
      markFailed();
      continue;
    }
    // Trailing missing optional inputs do not count.
    while (!ctx.inputs.empty() && !ctx.inputs.back())
      ctx.inputs.pop_back();
    FailureOr<SmallVector<Value>> results = rule(ctx);
    if (failed(results)) {
      markFailed();
      continue;
    }
    if (failed(checkResultSizes(ctx, *results))) {
      markFailed();
      continue;
    }
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

OwningOpRef<ModuleOp> Importer::run() {
  context.loadDialect<hgraph::HGraphDialect, func::FuncDialect>();
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
  for (auto [i, input] : llvm::enumerate(args)) {
    func.setArgAttr(i, hgraph::kNameAttr, builder.getStringAttr(input->name()));
    values[input->name()] = body->getArgument(i);
  }
  builder.setInsertionPointToEnd(body);
  for (const auto &[name, value] : fixed)
    values[name] = hgraph::ConstantOp::create(
        builder, NameLoc::get(builder.getStringAttr(name)), value);
  if (failed(importInitializers()) || failed(importNodes()) || !operatorsOk)
    return nullptr;
  for (auto [i, input] : llvm::enumerate(args)) {
    BlockArgument arg = body->getArgument(i);
    if (cast<RankedTensorType>(arg.getType()).getNumElements() == 0 &&
        !arg.use_empty()) {
      emitError(fileLoc) << "graph input '" << input->name()
                         << "' is empty (a dimension is 0); hetc takes empty "
                            "inputs only where their values are not read "
                            "(CastLike's target_type)";
      return nullptr;
    }
  }

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
  return Importer(model, source, context, options).run();
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
