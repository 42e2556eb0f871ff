//===- ModelLoader.cpp - Reading and normalizing ONNX models --------------===//
///
/// \file
/// libonnx throws (onnx::checker::ValidationError, ConvertError,
/// InferenceError, all std::exception); this file is built with exceptions
/// and turns each into a message.
///
//===----------------------------------------------------------------------===//

#include "conversion/ONNXToRLX/ModelLoader.h"

#include "onnx/checker.h"
#include "onnx/version_converter/convert.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace mlir::rlx::onnx_import {

int64_t defaultOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return -1;
}

namespace {

/// Reads the bytes `[offset, offset + length)` of `file` (`length` -1: to its
/// end) into `out`.
std::string readRange(const fs::path &file, int64_t offset, int64_t length,
                      std::string &out) {
  std::error_code ec;
  uintmax_t size = fs::file_size(file, ec);
  if (ec)
    return "cannot read '" + file.string() + "': " + ec.message();
  if (offset < 0 || static_cast<uintmax_t>(offset) > size)
    return "offset " + std::to_string(offset) + " is past the end of '" +
           file.string() + "' (" + std::to_string(size) + " bytes)";
  if (length < 0)
    length = static_cast<int64_t>(size) - offset;
  if (static_cast<uintmax_t>(offset) + static_cast<uintmax_t>(length) > size)
    return "bytes " + std::to_string(offset) + ".." +
           std::to_string(offset + length) + " are past the end of '" +
           file.string() + "' (" + std::to_string(size) + " bytes)";
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return "cannot open '" + file.string() + "'";
  out.resize(static_cast<size_t>(length));
  in.seekg(offset);
  if (!in.read(out.data(), length))
    return "cannot read '" + file.string() + "'";
  return "";
}

/// Replaces the external data of `tensor` by its bytes in `raw_data`. ONNX
/// external data paths are relative to the model's folder; an absolute path
/// or one leaving the folder is refused (a model file must not make the
/// compiler read arbitrary files).
std::string inlineExternalData(onnx::TensorProto &tensor,
                               const fs::path &modelDir) {
  if (tensor.data_location() != onnx::TensorProto::EXTERNAL)
    return "";
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    try {
      if (entry.key() == "location")
        location = entry.value();
      else if (entry.key() == "offset")
        offset = std::stoll(entry.value());
      else if (entry.key() == "length")
        length = std::stoll(entry.value());
    } catch (const std::exception &) {
      return "initializer '" + tensor.name() + "': external data " +
             entry.key() + " '" + entry.value() + "' is not a number";
    }
  }
  fs::path relative(location);
  if (location.empty() || relative.is_absolute() ||
      relative.lexically_normal().string().rfind("..", 0) == 0)
    return "initializer '" + tensor.name() + "': external data location '" +
           location + "' is not a path inside the model's folder";
  std::string bytes;
  if (std::string error = readRange(modelDir / relative, offset, length, bytes);
      !error.empty())
    return "initializer '" + tensor.name() + "': " + error;
  tensor.set_raw_data(std::move(bytes));
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return "";
}

std::string inlineExternalData(onnx::GraphProto &graph,
                               const fs::path &modelDir) {
  for (onnx::TensorProto &tensor : *graph.mutable_initializer())
    if (std::string error = inlineExternalData(tensor, modelDir);
        !error.empty())
      return error;
  for (onnx::NodeProto &node : *graph.mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_t())
        if (std::string error = inlineExternalData(*attr.mutable_t(), modelDir);
            !error.empty())
          return error;
      if (attr.has_g())
        if (std::string error = inlineExternalData(*attr.mutable_g(), modelDir);
            !error.empty())
          return error;
    }
  return "";
}

/// The subgraphs of `node` (Loop and Scan bodies, If branches).
template <typename Fn> void forEachSubgraph(const onnx::NodeProto &node, Fn fn) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.has_g())
      fn(attr.g());
    for (const onnx::GraphProto &g : attr.graphs())
      fn(g);
  }
}

/// libonnx 1.12's shape inference divides by the strides, dilations and
/// kernel sizes of convolutions and pools (a zero stride is SIGFPE, found by
/// fuzzing); they are checked positive before it runs, in subgraphs too.
std::string checkWindowAttributes(const onnx::GraphProto &graph) {
  static const char *const windowOps[] = {
      "Conv",        "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool",
      "AveragePool", "LpPool",        "MaxUnpool",   "MaxRoiPool"};
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string inner;
    forEachSubgraph(node, [&](const onnx::GraphProto &g) {
      if (inner.empty())
        inner = checkWindowAttributes(g);
    });
    if (!inner.empty())
      return "in a subgraph of node " + std::to_string(i) + " '" +
             node.name() + "' (" + node.op_type() + "): " + inner;
    if (std::find(std::begin(windowOps), std::end(windowOps), node.op_type()) ==
        std::end(windowOps))
      continue;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.name() != "strides" && attr.name() != "dilations" &&
          attr.name() != "kernel_shape")
        continue;
      for (int64_t v : attr.ints())
        if (v <= 0)
          return "node " + std::to_string(i) + " '" + node.name() + "' (" +
                 node.op_type() + "): attribute '" + attr.name() +
                 "' has a value " + std::to_string(v) + " (must be positive)";
    }
  }
  return "";
}

/// Every graph output is defined (a node's output, a graph input or an
/// initializer; in a subgraph, also one of the enclosing graphs'): ONNX's
/// checker lets an undefined one through and the version converter then
/// dereferences null (found by test/fuzz).
std::string checkOutputsDefined(const onnx::GraphProto &graph,
                                std::set<std::string> defined) {
  for (const onnx::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &init : graph.initializer())
    defined.insert(init.name());
  for (const onnx::NodeProto &node : graph.node())
    defined.insert(node.output().begin(), node.output().end());
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!defined.count(output.name()))
      return "graph output '" + output.name() + "' is not produced by any node";
  for (const onnx::NodeProto &node : graph.node()) {
    std::string inner;
    forEachSubgraph(node, [&](const onnx::GraphProto &g) {
      if (inner.empty())
        inner = checkOutputsDefined(g, defined);
    });
    if (!inner.empty())
      return "in a subgraph of node '" + node.name() + "' (" +
             node.op_type() + "): " + inner;
  }
  return "";
}

std::string checkOutputsDefined(const onnx::GraphProto &graph) {
  return checkOutputsDefined(graph, {});
}

/// Scan before opset 9 has a batch axis and sequence lengths, which the
/// version converter of libonnx 1.12 drops without changing the graph's
/// inputs (the converted model reads different shapes than the file's).
std::string checkNoOldScan(const onnx::GraphProto &graph) {
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() == "Scan")
      return "node '" + node.name() +
             "' (Scan): Scan of opset 8 (a batch axis and sequence lengths) "
             "is not supported; re-export the model with opset 9 or newer";
    std::string inner;
    forEachSubgraph(node, [&](const onnx::GraphProto &g) {
      if (inner.empty())
        inner = checkNoOldScan(g);
    });
    if (!inner.empty())
      return inner;
  }
  return "";
}

/// Every value name of `graph` and its subgraphs.
void collectNames(const onnx::GraphProto &graph, std::set<std::string> &names) {
  for (const onnx::ValueInfoProto &v : graph.input())
    names.insert(v.name());
  for (const onnx::TensorProto &t : graph.initializer())
    names.insert(t.name());
  for (const onnx::NodeProto &node : graph.node()) {
    names.insert(node.output().begin(), node.output().end());
    forEachSubgraph(node, [&](const onnx::GraphProto &g) {
      collectNames(g, names);
    });
  }
}

/// Softmax, LogSoftmax and Hardmax before opset 13 coerce their input to
/// 2-D at `axis` (default 1) and normalize over every dim from `axis` on.
/// libonnx's converter rewrites them only when it knows the input's shape,
/// which most models do not record (and then with the dims frozen), so
/// they are rewritten here first into what the new op means on any shape:
/// Reshape(Op(Flatten(x, axis), axis = 1), Shape(x)). The flattened value
/// is recorded as rank 2 so that the converter keeps the op as it is.
/// Returns the number of nodes rewritten.
int rewriteCoercedTo2D(onnx::GraphProto &graph,
                       std::set<std::string> &names) {
  int rewritten = 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  auto fresh = [&](const std::string &base) {
    std::string name = base;
    for (int i = 0; !names.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    return name;
  };
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        rewritten += rewriteCoercedTo2D(*attr.mutable_g(), names);
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        rewritten += rewriteCoercedTo2D(g, names);
    }
    bool coerced = (node.domain().empty() || node.domain() == "ai.onnx") &&
                   (node.op_type() == "Softmax" ||
                    node.op_type() == "LogSoftmax" ||
                    node.op_type() == "Hardmax") &&
                   node.input_size() == 1 && node.output_size() == 1;
    if (!coerced) {
      *nodes.Add() = std::move(node);
      continue;
    }
    int64_t axis = 1;
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == "axis")
        axis = attr.i();
    const std::string x = node.input(0), y = node.output(0);
    std::string label = node.name().empty() ? y : node.name();
    std::string shape = fresh(y + "/shape"), flat = fresh(y + "/flat"),
                normalized = fresh(y + "/2d");

    onnx::NodeProto *shapeOf = nodes.Add();
    shapeOf->set_op_type("Shape");
    shapeOf->set_name(fresh(label + "/shape"));
    shapeOf->add_input(x);
    shapeOf->add_output(shape);

    onnx::NodeProto *flatten = nodes.Add();
    flatten->set_op_type("Flatten");
    flatten->set_name(fresh(label + "/flatten"));
    flatten->add_input(x);
    flatten->add_output(flat);
    onnx::AttributeProto *flattenAxis = flatten->add_attribute();
    flattenAxis->set_name("axis");
    flattenAxis->set_type(onnx::AttributeProto::INT);
    flattenAxis->set_i(axis);
    onnx::ValueInfoProto *flatInfo = graph.add_value_info();
    flatInfo->set_name(flat);
    onnx::TensorShapeProto *flatShape =
        flatInfo->mutable_type()->mutable_tensor_type()->mutable_shape();
    flatShape->add_dim();
    flatShape->add_dim();

    onnx::NodeProto *op = nodes.Add();
    *op = node;
    op->clear_input();
    op->clear_output();
    op->add_input(flat);
    op->add_output(normalized);
    for (onnx::AttributeProto &attr : *op->mutable_attribute())
      if (attr.name() == "axis")
        attr.set_i(1);

    onnx::NodeProto *back = nodes.Add();
    back->set_op_type("Reshape");
    back->set_name(fresh(label + "/reshape"));
    back->add_input(normalized);
    back->add_input(shape);
    back->add_output(y);
    ++rewritten;
  }
  graph.mutable_node()->Swap(&nodes);
  return rewritten;
}

} // namespace

std::string loadModel(const std::string &path, int64_t opset,
                      onnx::ModelProto &model) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "cannot read '" + path + "'";
  {
    google::protobuf::io::IstreamInputStream raw(&in);
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT_MAX);
    if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
      return "'" + path +
             "' is not an ONNX model or is truncated (its protobuf does not "
             "parse)";
  }
  // Random bytes can parse as a protobuf of unknown fields: a model has at
  // least an IR version, a graph and an opset.
  if (!model.has_ir_version() || !model.has_graph() ||
      model.opset_import_size() == 0)
    return "'" + path +
           "' is not an ONNX model (no IR version, graph or opset import)";
  int64_t modelOpset = defaultOpset(model);
  if (modelOpset < 0)
    return "'" + path + "' imports no opset of the default ONNX domain";
  if (modelOpset < 1 || modelOpset > opset)
    return "'" + path + "' uses opset " + std::to_string(modelOpset) +
           "; the importer takes opsets 1 to " + std::to_string(opset);
  for (const onnx::OperatorSetIdProto &entry : model.opset_import())
    if (!entry.domain().empty() && entry.domain() != "ai.onnx")
      for (const onnx::NodeProto &node : model.graph().node())
        if (node.domain() == entry.domain())
          return "'" + path + "': node '" + node.name() + "' (" +
                 node.op_type() + ") is from domain '" + node.domain() +
                 "', which the importer does not know (only the default "
                 "ONNX domain)";

  fs::path modelDir = fs::path(path).parent_path();
  if (std::string error = inlineExternalData(*model.mutable_graph(), modelDir);
      !error.empty())
    return "'" + path + "': " + error;

  for (auto check : {checkWindowAttributes,
                     static_cast<std::string (*)(const onnx::GraphProto &)>(
                         checkOutputsDefined)})
    if (std::string error = check(model.graph()); !error.empty())
      return "'" + path + "': " + error;
  if (modelOpset < 9)
    if (std::string error = checkNoOldScan(model.graph()); !error.empty())
      return "'" + path + "': " + error;
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return "'" + path + "' is not a valid ONNX model: " + e.what();
  }
  // Reshape takes its shape as an input from opset 5 on.
  if (modelOpset >= 5 && modelOpset < 13 && opset >= 13) {
    std::set<std::string> names;
    collectNames(model.graph(), names);
    rewriteCoercedTo2D(*model.mutable_graph(), names);
  }
  if (modelOpset != opset) {
    try {
      model = onnx::version_conversion::ConvertVersion(model,
                                                       static_cast<int>(opset));
    } catch (const std::exception &e) {
      return "'" + path + "': converting opset " + std::to_string(modelOpset) +
             " to " + std::to_string(opset) + " failed: " + e.what();
    }
  }
  // No onnx::shape_inference::InferShapes: the importer does not need its
  // types (every rlx op infers its own and checks its operands), and libonnx
  // 1.12's convolution and pool inference crashes on malformed attributes
  // (SIGFPE, SIGSEGV in convPoolShapeInference, found by test/fuzz).
  return "";
}

} // namespace mlir::rlx::onnx_import
