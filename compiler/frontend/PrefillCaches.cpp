//===- PrefillCaches.cpp - A prefill without a past, writing the caches -===//

#include "compiler/frontend/PrefillCaches.h"
#include "compiler/frontend/OnnxGraphEdit.h"

#include <onnx/onnx_pb.h>

#include <set>

namespace hetc::frontend {

namespace {

/// The name prefix of the tensors the rewrite adds; no exporter uses it.
const char *const kPrefix = "hetc_prefill_cache/";

/// Sets `info` to a tensor of `element` and `shape`.
void setTensorType(onnx::ValueInfoProto &info, PrefillCache::Element element,
                   const std::vector<int64_t> &shape) {
  auto *tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(
      element == PrefillCache::Element::F16    ? onnx::TensorProto::FLOAT16
      : element == PrefillCache::Element::BF16 ? onnx::TensorProto::BFLOAT16
                                               : onnx::TensorProto::FLOAT);
  auto *dims = tensor->mutable_shape();
  dims->clear_dim();
  for (int64_t d : shape)
    dims->add_dim()->set_dim_value(d);
}

} // namespace

bool isPastless(const onnx::ModelProto &model,
                const std::vector<PrefillCache> &caches) {
  const onnx::GraphProto &graph = model.graph();
  bool gives = false;
  for (const PrefillCache &cache : caches) {
    if (findValue(graph.input(), cache.past))
      return false;
    gives |= findValue(graph.output(), cache.present) != nullptr;
  }
  return gives;
}

bool writeCachesInPlace(onnx::ModelProto &model,
                        const std::vector<PrefillCache> &caches,
                        std::string &error) {
  onnx::GraphProto &graph = *model.mutable_graph();
  if (defaultOpset(model) < 11) {
    error = "a prefill without a past writes the decode step's caches by "
            "ScatterElements, which needs opset 11 or later; the model "
            "imports opset " +
            std::to_string(defaultOpset(model));
    return false;
  }
  const onnx::ValueInfoProto *positions =
      findValue(graph.input(), "position_ids");
  if (!positions || rankOf(*positions) != 2) {
    error = "a prefill without a past writes each token's key and value "
            "into the decode step's caches at the token's position: it "
            "needs a position_ids input [batch, sequence]";
    return false;
  }
  std::set<std::string> renamed;
  for (const PrefillCache &cache : caches) {
    const onnx::ValueInfoProto *out = findValue(graph.output(), cache.present);
    if (!out) {
      error = "a prefill without a past must give every cache of the decode "
              "step; it has no output '" +
              cache.present + "' (the step's update of '" + cache.past + "')";
      return false;
    }
    if (cache.shape.size() != 4 || rankOf(*out) != 4) {
      error = "the prefill's output '" + cache.present +
              "' and the decode step's cache '" + cache.past +
              "' must be [batch, heads, positions, head size]";
      return false;
    }
    // A present passed through from an input is not a prefill's.
    if (findValue(graph.input(), cache.present)) {
      error = "the prefill's output '" + cache.present +
              "' is one of its inputs, not the keys or values it computes";
      return false;
    }
    renamed.insert(cache.present);
  }

  // The new rows keep their readers inside the graph under a name of
  // their own; the output of the present's name becomes the written cache.
  auto inner = [](const std::string &name) {
    return std::string(kPrefix) + name + "/rows";
  };
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (std::string &input : *node.mutable_input())
      if (renamed.count(input))
        input = inner(input);
    for (std::string &output : *node.mutable_output())
      if (renamed.count(output))
        output = inner(output);
  }
  // slots[b, 0, l, 0] = position_ids[b, l]: each row's position, to
  // broadcast over the heads and the head size.
  std::string p = kPrefix;
  onnx::TensorProto *shape = graph.add_initializer();
  shape->set_name(p + "slot_shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(4);
  for (int64_t d : {0, 1, -1, 1})
    shape->add_int64_data(d);
  *graph.add_node() = makeNode(kPrefix, "Reshape",
                               {"position_ids", p + "slot_shape"}, p + "slots");
  for (const PrefillCache &cache : caches) {
    std::string rows = inner(cache.present);
    std::string at = p + cache.present;
    *graph.add_node() = makeNode(kPrefix, "Shape", {rows}, at + "/shape");
    *graph.add_node() = makeNode(kPrefix, "Expand",
                                 {p + "slots", at + "/shape"}, at + "/indices");
    onnx::NodeProto scatter =
        makeNode(kPrefix, "ScatterElements",
                 {cache.past, at + "/indices", rows}, cache.present);
    onnx::AttributeProto *axis = scatter.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(2);
    *graph.add_node() = std::move(scatter);
    onnx::ValueInfoProto *past = graph.add_input();
    past->set_name(cache.past);
    setTensorType(*past, cache.element, cache.shape);
    for (onnx::ValueInfoProto &output : *graph.mutable_output())
      if (output.name() == cache.present)
        setTensorType(output, cache.element, cache.shape);
  }
  // Shapes the exporter recorded for the renamed values no longer name
  // them; the importer works every intermediate shape out.
  graph.clear_value_info();
  return true;
}

bool pinPrefillDims(const onnx::ModelProto &model, int64_t tokens,
                    std::map<std::string, int64_t> &dims, std::string &error) {
  const onnx::TensorShapeProto *ids = tokenShape(model);
  if (!ids) {
    if (tokens <= 0)
      return true;
    error = "a prefill bucket sets the sequence length of the input_ids "
            "input [batch, sequence], which this model lacks";
    return false;
  }
  const onnx::TensorShapeProto &shape = *ids;
  // One sequence: a batch dimension of a name takes 1.
  if (shape.dim(0).has_dim_param() && !shape.dim(0).dim_param().empty())
    dims[shape.dim(0).dim_param()] = 1;
  if (tokens <= 0)
    return true;
  const onnx::TensorShapeProto::Dimension &seq = shape.dim(1);
  if (seq.has_dim_value()) {
    if (seq.dim_value() == tokens)
      return true;
    error = "input_ids takes " + std::to_string(seq.dim_value()) +
            " tokens, not a bucket of " + std::to_string(tokens) +
            " (--prefill-buckets needs a prefill exported with a symbolic "
            "sequence axis)";
    return false;
  }
  if (!seq.has_dim_param() || seq.dim_param().empty()) {
    error = "input_ids' sequence dimension has neither a length nor a name";
    return false;
  }
  dims[seq.dim_param()] = tokens;
  return true;
}

} // namespace hetc::frontend
