//===- StaticCache.cpp - A growing KV cache made static ----------------===//

#include "compiler/frontend/StaticCache.h"
#include "compiler/frontend/OnnxGraphEdit.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace hetc::frontend {

namespace {

/// The name prefix of the tensors the rewrite adds; no exporter uses it.
const char *const kPrefix = "hetc_static_cache/";

bool isCacheName(const std::string &name) { return name.rfind("past", 0) == 0; }

void setIntAttr(onnx::NodeProto &node, const std::string &name, int64_t value) {
  onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(value);
}

void addInt64Initializer(onnx::GraphProto &graph, const std::string &name,
                         const std::vector<int64_t> &values) {
  onnx::TensorProto *tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::INT64);
  tensor->add_dims(int64_t(values.size()));
  for (int64_t v : values)
    tensor->add_int64_data(v);
}

/// Sets dimension `d` of a value's shape to `value`, if it has one.
void setDim(onnx::ValueInfoProto &info, int d, int64_t value) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
    return;
  auto *shape = info.mutable_type()->mutable_tensor_type()->mutable_shape();
  if (d < shape->dim_size())
    shape->mutable_dim(d)->set_dim_value(value);
}

/// The Concat's axis; none when it has no axis attribute.
std::optional<int64_t> axisOf(const onnx::NodeProto &node) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == "axis")
      return attr.i();
  return std::nullopt;
}

} // namespace

bool makeCacheStatic(onnx::ModelProto &model, int64_t maxContext,
                     std::string &error) {
  onnx::GraphProto &graph = *model.mutable_graph();
  if (maxContext < 2) {
    error =
        "--max-context must be 2 or more, got " + std::to_string(maxContext);
    return false;
  }
  if (defaultOpset(model) < 11) {
    error = "--max-context rewrites the cache writes as ScatterElements, "
            "which needs opset 11 or later; the model imports opset " +
            std::to_string(defaultOpset(model));
    return false;
  }
  std::map<std::string, onnx::ValueInfoProto *> inputs;
  for (onnx::ValueInfoProto &input : *graph.mutable_input())
    inputs[input.name()] = &input;
  std::set<std::string> outputs;
  for (const onnx::ValueInfoProto &output : graph.output())
    outputs.insert(output.name());

  // The caches: a rank-4 past* input that a Concat along axis 2 (or -2)
  // joins with the new key or value, first, into a graph output.
  std::vector<int> concats;
  std::set<std::string> caches;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    if (node.op_type() != "Concat" || node.input_size() != 2 ||
        !isCacheName(node.input(0)) || !inputs.count(node.input(0)))
      continue;
    const onnx::ValueInfoProto &past = *inputs[node.input(0)];
    std::optional<int64_t> axis = axisOf(node);
    if (rankOf(past) != 4 || (axis != 2 && axis != -2)) {
      error = "--max-context: the cache '" + past.name() +
              "' must be [batch, heads, positions, head size], joined with "
              "the new key along axis 2 (node '" +
              node.name() + "')";
      return false;
    }
    if (!outputs.count(node.output(0))) {
      error = "--max-context: the cache '" + past.name() + "' grown by node '" +
              node.name() + "' is not an output of the graph (a present*)";
      return false;
    }
    if (!caches.insert(past.name()).second) {
      error = "--max-context: the cache '" + past.name() +
              "' is grown by more than one Concat";
      return false;
    }
    concats.push_back(i);
  }
  if (concats.empty()) {
    error = "--max-context: the graph has no growing KV cache (an input "
            "past* or past_key_values* that a Concat along axis 2 joins with "
            "the new key into an output present*)";
    return false;
  }
  // Nothing else may read a cache: it is the Concat's to grow.
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      if (caches.count(input) && node.op_type() != "Concat") {
        error = "--max-context: node '" + node.name() + "' reads the cache '" +
                input + "' other than by growing it";
        return false;
      }
  auto mask = inputs.find("attention_mask");
  if (mask == inputs.end() || rankOf(*mask->second) != 2) {
    error = "--max-context needs the graph's attention_mask input [batch, "
            "positions]: a sequence's position is the count of its mask's "
            "ones minus one";
    return false;
  }
  auto ids = inputs.find("input_ids");
  if (ids != inputs.end() && rankOf(*ids->second) == 2) {
    const onnx::TensorShapeProto::Dimension &seq =
        ids->second->type().tensor_type().shape().dim(1);
    if (seq.has_dim_value() && seq.dim_value() != 1) {
      error = "--max-context makes a decode step of one token per sequence, "
              "but input_ids takes " +
              std::to_string(seq.dim_value());
      return false;
    }
    setDim(*ids->second, 1, 1);
  }

  // Shapes: every cache and the mask hold maxContext positions; so does
  // every present output. Shapes the exporter recorded for intermediate
  // values are dropped: the importer works them out.
  for (const std::string &name : caches)
    setDim(*inputs[name], 2, maxContext);
  setDim(*mask->second, 1, maxContext);
  for (int i : concats)
    for (onnx::ValueInfoProto &output : *graph.mutable_output())
      if (output.name() == graph.node(i).output(0))
        setDim(output, 2, maxContext);
  graph.clear_value_info();

  // position = sum(attention_mask) - 1, as [batch, 1, 1, 1] to broadcast
  // over each cache's heads and head size.
  std::string p = kPrefix;
  std::vector<onnx::NodeProto> head;
  onnx::NodeProto cast =
      makeNode(kPrefix, "Cast", {"attention_mask"}, p + "mask");
  setIntAttr(cast, "to", onnx::TensorProto::INT64);
  head.push_back(cast);
  onnx::NodeProto sum;
  if (defaultOpset(model) >= 13) {
    addInt64Initializer(graph, p + "axes", {1});
    sum = makeNode(kPrefix, "ReduceSum", {p + "mask", p + "axes"}, p + "count");
  } else {
    sum = makeNode(kPrefix, "ReduceSum", {p + "mask"}, p + "count");
    onnx::AttributeProto *axes = sum.add_attribute();
    axes->set_name("axes");
    axes->set_type(onnx::AttributeProto::INTS);
    axes->add_ints(1);
  }
  setIntAttr(sum, "keepdims", 1);
  head.push_back(sum);
  addInt64Initializer(graph, p + "one", {1});
  head.push_back(
      makeNode(kPrefix, "Sub", {p + "count", p + "one"}, p + "position"));
  addInt64Initializer(graph, p + "slot_shape", {-1, 1, 1, 1});
  head.push_back(makeNode(kPrefix, "Reshape",
                          {p + "position", p + "slot_shape"}, p + "slots"));

  // Each Concat(past, new) becomes ScatterElements(past, position expanded
  // to new's shape, new) along axis 2: the new rows written at the
  // position, in place.
  std::vector<onnx::NodeProto> nodes(head);
  std::set<int> rewritten(concats.begin(), concats.end());
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    if (!rewritten.count(i)) {
      nodes.push_back(node);
      continue;
    }
    std::string out = node.output(0);
    nodes.push_back(
        makeNode(kPrefix, "Shape", {node.input(1)}, p + out + "/shape"));
    nodes.push_back(makeNode(kPrefix, "Expand",
                             {p + "slots", p + out + "/shape"},
                             p + out + "/indices"));
    onnx::NodeProto scatter =
        makeNode(kPrefix, "ScatterElements",
                 {node.input(0), p + out + "/indices", node.input(1)}, out);
    scatter.set_name(node.name());
    setIntAttr(scatter, "axis", 2);
    nodes.push_back(scatter);
  }
  graph.clear_node();
  for (onnx::NodeProto &node : nodes)
    *graph.add_node() = std::move(node);
  return true;
}

bool pinDecodeStepDims(const onnx::ModelProto &model, int64_t batch,
                       std::map<std::string, int64_t> &dims,
                       std::string &error) {
  const onnx::TensorShapeProto *ids = tokenShape(model);
  if (!ids) {
    if (batch <= 0)
      return true;
    error = "--max-batch sets the batch of the input_ids input [batch, "
            "sequence], which this model lacks";
    return false;
  }
  const onnx::TensorShapeProto &shape = *ids;
  const onnx::TensorShapeProto::Dimension &slots = shape.dim(0);
  if (slots.has_dim_value()) {
    if (batch > 0 && slots.dim_value() != batch) {
      error = "input_ids takes a batch of " +
              std::to_string(slots.dim_value()) + ", not --max-batch " +
              std::to_string(batch) +
              " (export the step with a symbolic batch axis)";
      return false;
    }
  } else if (!slots.dim_param().empty()) {
    auto given = dims.find(slots.dim_param());
    if (batch > 0 && given != dims.end() && given->second != batch) {
      error = "--dim " + slots.dim_param() + "=" +
              std::to_string(given->second) + " and --max-batch " +
              std::to_string(batch) + " give the batch two sizes";
      return false;
    }
    dims.emplace(slots.dim_param(), batch > 0 ? batch : 1);
  }
  const onnx::TensorShapeProto::Dimension &sequence = shape.dim(1);
  if (!sequence.has_dim_value() && !sequence.dim_param().empty())
    dims.emplace(sequence.dim_param(), 1);
  return true;
}

} // namespace hetc::frontend
