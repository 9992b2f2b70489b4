//===- OnnxGraphEdit.h - Helpers of the rewrites of ONNX graphs -*- C++ -*-===//
//
// What the rewrites that run on an ONNX graph before its import share
// (StaticCache.h, PrefillCaches.h): its default opset, a graph value by
// name, a value's rank and the nodes they add.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_COMPILER_FRONTEND_ONNXGRAPHEDIT_H
#define HETC_COMPILER_FRONTEND_ONNXGRAPHEDIT_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hetc::frontend {

/// The version of the default (ai.onnx) operator set `model` imports; 0
/// when it imports none.
int64_t defaultOpset(const onnx::ModelProto &model);

/// The value named `name` among `values` (a graph's inputs or outputs), or
/// null.
const onnx::ValueInfoProto *findValue(
    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> &values,
    const std::string &name);

/// The recorded shape of `model`'s token ids, its `input_ids` input
/// [batch, sequence], or null when it has no such input of rank 2.
const onnx::TensorShapeProto *tokenShape(const onnx::ModelProto &model);

/// The rank a value's recorded shape gives, or -1 without one.
int rankOf(const onnx::ValueInfoProto &info);

/// A node of `op` reading `inputs` into `output`, named `prefix + output`
/// (a prefix no exporter uses, so that errors name the rewrite's nodes).
onnx::NodeProto makeNode(const std::string &prefix, const std::string &op,
                         const std::vector<std::string> &inputs,
                         const std::string &output);

} // namespace hetc::frontend

#endif // HETC_COMPILER_FRONTEND_ONNXGRAPHEDIT_H
