//===- PrefillCachesTest.cpp - A prefill without a past, made to write -===//
//
// writeCachesInPlace rewrites a decoder without a past so that each cache
// output is a write of its rows into the decode step's cache at the
// rows' position_ids, its own readers untouched, and refuses graphs it
// cannot rewrite by name; pinPrefillDims pins one sequence of a bucket's
// tokens.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/PrefillCaches.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cctype>

using namespace hetc::frontend;

namespace {

/// Adds a graph value `name` of float or int64 elements and `dims` (a
/// name for each negative entry) to `values`.
void addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> &values,
              const std::string &name, int type,
              const std::vector<std::string> &dims) {
  onnx::ValueInfoProto *value = values.Add();
  value->set_name(name);
  auto *tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  for (const std::string &d : dims) {
    auto *dim = tensor->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0])))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
}

/// A decoder without a past: token ids and positions in, the new keys
/// (`keys`, [batch, 2, sequence, 4]) out as present.0.key and read again
/// into `scores`.
onnx::ModelProto pastless(int opset = 17) {
  onnx::ModelProto model;
  model.add_opset_import()->set_version(opset);
  onnx::GraphProto &graph = *model.mutable_graph();
  addValue(*graph.mutable_input(), "input_ids", onnx::TensorProto::INT64,
           {"batch", "sequence"});
  addValue(*graph.mutable_input(), "position_ids", onnx::TensorProto::INT64,
           {"batch", "sequence"});
  addValue(*graph.mutable_input(), "keys", onnx::TensorProto::FLOAT,
           {"batch", "2", "sequence", "4"});
  onnx::NodeProto *k = graph.add_node();
  k->set_op_type("Identity");
  k->add_input("keys");
  k->add_output("present.0.key");
  onnx::NodeProto *s = graph.add_node();
  s->set_op_type("Identity");
  s->add_input("present.0.key");
  s->add_output("scores");
  addValue(*graph.mutable_output(), "present.0.key", onnx::TensorProto::FLOAT,
           {"batch", "2", "sequence", "4"});
  addValue(*graph.mutable_output(), "scores", onnx::TensorProto::FLOAT, {});
  return model;
}

std::vector<PrefillCache> caches() {
  return {{"present.0.key",
           "past.0.key",
           {1, 2, 8, 4},
           PrefillCache::Element::F32}};
}

TEST(PrefillCachesTest, PresentBecomesAWriteAtThePositions) {
  onnx::ModelProto model = pastless();
  ASSERT_TRUE(isPastless(model, caches()));
  std::string error;
  ASSERT_TRUE(writeCachesInPlace(model, caches(), error)) << error;
  const onnx::GraphProto &graph = model.graph();
  // The cache is an input of its shape, and the output keeps its name.
  const onnx::ValueInfoProto &past = graph.input(graph.input_size() - 1);
  EXPECT_EQ(past.name(), "past.0.key");
  ASSERT_EQ(past.type().tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(past.type().tensor_type().shape().dim(2).dim_value(), 8);
  // The graph's own reader reads the new rows, not the written cache.
  EXPECT_EQ(graph.node(0).output(0), "hetc_prefill_cache/present.0.key/rows");
  EXPECT_EQ(graph.node(1).input(0), "hetc_prefill_cache/present.0.key/rows");
  // The last node writes the rows into the cache along axis 2, at
  // indices expanded from position_ids.
  const onnx::NodeProto &write = graph.node(graph.node_size() - 1);
  EXPECT_EQ(write.op_type(), "ScatterElements");
  EXPECT_EQ(write.output(0), "present.0.key");
  EXPECT_EQ(write.input(0), "past.0.key");
  EXPECT_EQ(write.input(2), "hetc_prefill_cache/present.0.key/rows");
  ASSERT_EQ(write.attribute_size(), 1);
  EXPECT_EQ(write.attribute(0).i(), 2);
  bool reshaped = false;
  for (const onnx::NodeProto &node : graph.node())
    reshaped |= node.op_type() == "Reshape" && node.input(0) == "position_ids";
  EXPECT_TRUE(reshaped);
}

TEST(PrefillCachesTest, AGraphTakingTheCacheIsNotPastless) {
  onnx::ModelProto model = pastless();
  addValue(*model.mutable_graph()->mutable_input(), "past.0.key",
           onnx::TensorProto::FLOAT, {"1", "2", "8", "4"});
  EXPECT_FALSE(isPastless(model, caches()));
}

TEST(PrefillCachesTest, RefusesWhatItCannotRewrite) {
  std::string error;
  onnx::ModelProto old = pastless(/*opset=*/10);
  EXPECT_FALSE(writeCachesInPlace(old, caches(), error));
  EXPECT_NE(error.find("opset 11 or later"), std::string::npos) << error;

  onnx::ModelProto unplaced = pastless();
  unplaced.mutable_graph()->mutable_input(1)->set_name("places");
  EXPECT_FALSE(writeCachesInPlace(unplaced, caches(), error));
  EXPECT_NE(error.find("needs a position_ids input"), std::string::npos)
      << error;

  std::vector<PrefillCache> flat = caches();
  flat[0].shape = {2, 8, 4};
  onnx::ModelProto model = pastless();
  EXPECT_FALSE(writeCachesInPlace(model, flat, error));
  EXPECT_NE(error.find("[batch, heads, positions, head size]"),
            std::string::npos)
      << error;

  onnx::ModelProto passed = pastless();
  addValue(*passed.mutable_graph()->mutable_input(), "present.0.key",
           onnx::TensorProto::FLOAT, {"1", "2", "4", "4"});
  EXPECT_FALSE(writeCachesInPlace(passed, caches(), error));
  EXPECT_NE(error.find("is one of its inputs"), std::string::npos) << error;
}

TEST(PrefillCachesTest, PinsOneSequenceOfTheBucketsTokens) {
  std::map<std::string, int64_t> dims{{"batch", 4}};
  std::string error;
  ASSERT_TRUE(pinPrefillDims(pastless(), 16, dims, error)) << error;
  EXPECT_EQ(dims.at("batch"), 1);
  EXPECT_EQ(dims.at("sequence"), 16);

  onnx::ModelProto fixed = pastless();
  auto *seq = fixed.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(1);
  seq->set_dim_value(8);
  EXPECT_TRUE(pinPrefillDims(fixed, 8, dims, error));
  EXPECT_FALSE(pinPrefillDims(fixed, 16, dims, error));
  EXPECT_NE(error.find("input_ids takes 8 tokens, not a bucket of 16"),
            std::string::npos)
      << error;

  onnx::ModelProto tokenless;
  tokenless.mutable_graph();
  EXPECT_TRUE(pinPrefillDims(tokenless, 0, dims, error));
  EXPECT_FALSE(pinPrefillDims(tokenless, 4, dims, error));
}

} // namespace
