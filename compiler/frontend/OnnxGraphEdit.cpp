//===- OnnxGraphEdit.cpp - Helpers of the rewrites of ONNX graphs -------===//

#include "compiler/frontend/OnnxGraphEdit.h"

namespace hetc::frontend {

int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      return id.version();
  return 0;
}

const onnx::ValueInfoProto *findValue(
    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> &values,
    const std::string &name) {
  for (const onnx::ValueInfoProto &value : values)
    if (value.name() == name)
      return &value;
  return nullptr;
}

int rankOf(const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape())
    return -1;
  return info.type().tensor_type().shape().dim_size();
}

const onnx::TensorShapeProto *tokenShape(const onnx::ModelProto &model) {
  const onnx::ValueInfoProto *ids =
      findValue(model.graph().input(), "input_ids");
  if (!ids || rankOf(*ids) != 2)
    return nullptr;
  return &ids->type().tensor_type().shape();
}

onnx::NodeProto makeNode(const std::string &prefix, const std::string &op,
                         const std::vector<std::string> &inputs,
                         const std::string &output) {
  onnx::NodeProto node;
  node.set_op_type(op);
  node.set_name(prefix + output);
  for (const std::string &input : inputs)
    node.add_input(input);
  node.add_output(output);
  return node;
}

} // namespace hetc::frontend
