//===- Manifest.cpp - An artifact's parsed manifest -----------------------===//
//
/// \file
/// Parses the manifest JSON. Every field is type-checked: the manifest comes
/// from a file on disk, so a wrong one is corruption to report, not a bug.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include <algorithm>
#include "DType.h"
#include "Status.h"
#include "rlx/abi.h"

#include <nlohmann/json.hpp>

using namespace rlxrt;
using Json = nlohmann::json;

namespace {

/// Walks the JSON, keeping the path of the current field for messages.
class ManifestParser {
public:
  explicit ManifestParser(const std::string &path) : path(path) {}

  Manifest parse(const std::string &text) {
    Json root = Json::parse(text, /*cb=*/nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded())
      error("", "not valid JSON");
    if (!root.is_object())
      error("", "not a JSON object");
    Manifest manifest;
    if (root.contains(RLX_MANIFEST_FORMAT) &&
        getString(root, RLX_MANIFEST_FORMAT, "") != RLX_MANIFEST_FORMAT_NAME)
      error(RLX_MANIFEST_FORMAT, "expected \"" RLX_MANIFEST_FORMAT_NAME "\"");
    if (root.contains(RLX_MANIFEST_ABI_VERSION))
      manifest.abiVersion = getInteger(root, RLX_MANIFEST_ABI_VERSION, "");
    manifest.target = getString(root, RLX_MANIFEST_TARGET, "");
    if (root.contains(RLX_MANIFEST_COMPILER))
      manifest.compiler = getString(root, RLX_MANIFEST_COMPILER, "");
    if (root.contains(RLX_MANIFEST_TARGET_TRIPLE))
      manifest.targetTriple = getString(root, RLX_MANIFEST_TARGET_TRIPLE, "");
    if (root.contains(RLX_MANIFEST_CPU))
      manifest.cpu = getString(root, RLX_MANIFEST_CPU, "");
    if (root.contains(RLX_MANIFEST_CPU_FEATURES))
      for (const Json &feature :
           getArray(root, RLX_MANIFEST_CPU_FEATURES, "")) {
        if (!feature.is_string() || feature.get<std::string>().size() < 2 ||
            feature.get<std::string>()[0] != '+')
          error(RLX_MANIFEST_CPU_FEATURES, "expected \"+name\" strings");
        manifest.cpuFeatures.push_back(feature.get<std::string>());
      }

    const Json &entries = getArray(root, RLX_MANIFEST_ENTRY_POINTS, "");
    for (size_t i = 0; i < entries.size(); ++i) {
      std::string where =
          RLX_MANIFEST_ENTRY_POINTS "[" + std::to_string(i) + "]";
      rlx_entry_point_s entry = parseEntryPoint(entries[i], where);
      if (manifest.findEntryPoint(entry.name))
        error(where, "duplicate entry point '" + entry.name + "'");
      manifest.entryPoints.push_back(std::move(entry));
    }

    if (root.contains(RLX_MANIFEST_PARAMS)) {
      const Json &params = getArray(root, RLX_MANIFEST_PARAMS, "");
      for (size_t i = 0; i < params.size(); ++i) {
        std::string where = RLX_MANIFEST_PARAMS "[" + std::to_string(i) + "]";
        addParam(manifest, parseSpec(params[i], where), where);
      }
    }
    for (size_t i = 0; i < manifest.entryPoints.size(); ++i)
      resolvePrepare(manifest, manifest.entryPoints[i],
                     RLX_MANIFEST_ENTRY_POINTS "[" + std::to_string(i) + "]");
    for (const rlx_entry_point_s &entry : manifest.entryPoints)
      if (!entry.prepare.empty())
        for (rlx_entry_point_s &other : manifest.entryPoints)
          if (other.name == entry.prepare)
            other.preparesParams = true;
    for (size_t i = 0; i < manifest.entryPoints.size(); ++i)
      if (!manifest.entryPoints[i].preparesParams)
        manifest.userEntryPoints.push_back(i);
    // The top-level list is the union; tolerate a manifest that omits it or
    // an entry's param, but never a disagreement about one.
    for (const rlx_entry_point_s &entry : manifest.entryPoints)
      for (const TensorSpec &param : entry.publicParams)
        addParam(manifest, param, "entry point '" + entry.name + "'");
    return manifest;
  }

private:
  [[noreturn]] void error(const std::string &where, const std::string &what) {
    fail(RLX_STATUS_DATA_LOSS, "malformed manifest in '" + path + "': " +
                                   (where.empty() ? "" : where + ": ") + what);
  }

  static std::string join(const std::string &where, const char *key) {
    return where.empty() ? key : where + "." + key;
  }

  const Json &getField(const Json &object, const char *key,
                       const std::string &where) {
    auto it = object.find(key);
    if (it == object.end())
      error(where, std::string("missing \"") + key + "\"");
    return *it;
  }
  std::string getString(const Json &object, const char *key,
                        const std::string &where) {
    const Json &value = getField(object, key, where);
    if (!value.is_string())
      error(join(where, key), "expected a string");
    return value.get<std::string>();
  }
  int64_t getInteger(const Json &object, const char *key,
                     const std::string &where) {
    const Json &value = getField(object, key, where);
    if (!value.is_number_integer())
      error(join(where, key), "expected an integer");
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > uint64_t(INT64_MAX))
      error(join(where, key), "integer too large");
    return value.get<int64_t>();
  }
  const Json &getArray(const Json &object, const char *key,
                       const std::string &where) {
    const Json &value = getField(object, key, where);
    if (!value.is_array())
      error(join(where, key), "expected an array");
    return value;
  }

  TensorSpec parseSpec(const Json &object, const std::string &where) {
    if (!object.is_object())
      error(where, "expected an object");
    TensorSpec spec;
    spec.name = getString(object, RLX_MANIFEST_TENSOR_NAME, where);
    std::string dtype = getString(object, RLX_MANIFEST_TENSOR_DTYPE, where);
    if (!parseDType(dtype, spec.dtype))
      fail(RLX_STATUS_UNIMPLEMENTED,
           "manifest of '" + path +
               "': " + join(where, RLX_MANIFEST_TENSOR_DTYPE) +
               ": unsupported dtype '" + dtype + "'");
    const Json &shape = getArray(object, RLX_MANIFEST_TENSOR_SHAPE, where);
    for (const Json &dim : shape) {
      if (!dim.is_number_integer() ||
          (dim.is_number_unsigned() &&
           dim.get<uint64_t>() > uint64_t(INT64_MAX)) ||
          dim.get<int64_t>() < -1)
        error(join(where, RLX_MANIFEST_TENSOR_SHAPE),
              "expected integers >= -1");
      spec.shape.push_back(dim.get<int64_t>());
    }
    return spec;
  }

  std::vector<TensorSpec> parseSpecs(const Json &object, const char *key,
                                     const std::string &where, bool optional) {
    std::vector<TensorSpec> specs;
    if (optional && !object.contains(key))
      return specs;
    const Json &array = getArray(object, key, where);
    for (size_t i = 0; i < array.size(); ++i)
      specs.push_back(parseSpec(array[i], join(where, key) + "[" +
                                              std::to_string(i) + "]"));
    return specs;
  }

  rlx_entry_point_s parseEntryPoint(const Json &object,
                                    const std::string &where) {
    if (!object.is_object())
      error(where, "expected an object");
    rlx_entry_point_s entry;
    entry.name = getString(object, RLX_MANIFEST_ENTRY_NAME, where);
    entry.symbol = getString(object, RLX_MANIFEST_ENTRY_SYMBOL, where);
    entry.inputs = parseSpecs(object, RLX_MANIFEST_ENTRY_INPUTS, where,
                              /*optional=*/false);
    entry.params = parseSpecs(object, RLX_MANIFEST_ENTRY_PARAMS, where,
                              /*optional=*/true);
    entry.outputs = parseSpecs(object, RLX_MANIFEST_ENTRY_OUTPUTS, where,
                               /*optional=*/false);
    if (object.contains(RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS))
      entry.dimConstraints = parseDimConstraints(object, entry, where);
    if (object.contains(RLX_MANIFEST_ENTRY_PREPARE))
      entry.prepare = getString(object, RLX_MANIFEST_ENTRY_PREPARE, where);
    if (object.contains(RLX_MANIFEST_ENTRY_WORKSPACE_BYTES)) {
      int64_t bytes =
          getInteger(object, RLX_MANIFEST_ENTRY_WORKSPACE_BYTES, where);
      if (bytes < 0)
        error(join(where, RLX_MANIFEST_ENTRY_WORKSPACE_BYTES), "negative");
      entry.workspaceBytes = static_cast<uint64_t>(bytes);
    }
    entry.workspaceLowerBoundBytes = entry.workspaceBytes;
    if (object.contains(RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES)) {
      int64_t bytes = getInteger(
          object, RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES, where);
      if (bytes < 0)
        error(join(where, RLX_MANIFEST_ENTRY_WORKSPACE_LOWER_BOUND_BYTES),
              "negative");
      entry.workspaceLowerBoundBytes = static_cast<uint64_t>(bytes);
    }
    return entry;
  }

  /// Constraints name existing dynamic input dims; anything else is a
  /// corrupt manifest, not a constraint to skip.
  std::vector<DimConstraint> parseDimConstraints(const Json &object,
                                                 const rlx_entry_point_s &entry,
                                                 const std::string &where) {
    std::vector<DimConstraint> constraints;
    const Json &array =
        getArray(object, RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS, where);
    for (size_t i = 0; i < array.size(); ++i) {
      std::string at = join(where, RLX_MANIFEST_ENTRY_DIM_CONSTRAINTS) + "[" +
                       std::to_string(i) + "]";
      if (!array[i].is_object())
        error(at, "expected an object");
      DimConstraint constraint;
      constraint.size =
          getInteger(array[i], RLX_MANIFEST_DIM_CONSTRAINT_SIZE, at);
      for (const Json &pair :
           getArray(array[i], RLX_MANIFEST_DIM_CONSTRAINT_DIMS, at)) {
        if (!pair.is_array() || pair.size() != 2 ||
            !pair[0].is_number_unsigned() || !pair[1].is_number_unsigned())
          error(join(at, RLX_MANIFEST_DIM_CONSTRAINT_DIMS),
                "expected [input, dim] pairs");
        size_t input = pair[0].get<size_t>(), dim = pair[1].get<size_t>();
        if (input >= entry.inputs.size() ||
            dim >= entry.inputs[input].shape.size())
          error(join(at, RLX_MANIFEST_DIM_CONSTRAINT_DIMS),
                "names no input dim");
        constraint.dims.push_back({input, dim});
      }
      if (constraint.dims.empty())
        error(join(at, RLX_MANIFEST_DIM_CONSTRAINT_DIMS),
              "expected at least one dim");
      constraints.push_back(std::move(constraint));
    }
    return constraints;
  }

  /// The params `entry` reads from its prepare entry point: each must be an
  /// output of that entry of the same type; the rest are public.
  void resolvePrepare(const Manifest &manifest, rlx_entry_point_s &entry,
                      const std::string &where) {
    if (entry.prepare.empty()) {
      entry.publicParams = entry.params;
      return;
    }
    const rlx_entry_point_s *prepare = manifest.findEntryPoint(entry.prepare);
    std::string at = join(where, RLX_MANIFEST_ENTRY_PREPARE);
    if (!prepare || prepare == &entry || !prepare->prepare.empty() ||
        !prepare->inputs.empty())
      error(at, "'" + entry.prepare +
                    "' is not an entry point without inputs to prepare from");
    for (const TensorSpec &param : entry.params) {
      auto made = std::find_if(
          prepare->outputs.begin(), prepare->outputs.end(),
          [&](const TensorSpec &out) { return out.name == param.name; });
      if (made == prepare->outputs.end()) {
        entry.publicParams.push_back(param);
        continue;
      }
      if (made->dtype != param.dtype || made->shape != param.shape)
        error(at, "param '" + param.name + "' is " +
                      formatDimsType(param.dtype, param.shape) + " but '" +
                      entry.prepare + "' makes it " +
                      formatDimsType(made->dtype, made->shape));
    }
  }

  void addParam(Manifest &manifest, const TensorSpec &param,
                const std::string &where) {
    const TensorSpec *known = manifest.findParam(param.name);
    if (!known) {
      manifest.params.push_back(param);
      return;
    }
    if (known->dtype != param.dtype || known->shape != param.shape)
      error(where, "param '" + param.name + "' declared as both " +
                       formatDimsType(known->dtype, known->shape) + " and " +
                       formatDimsType(param.dtype, param.shape));
  }

  const std::string &path;
};

} // namespace

namespace rlxrt {

const rlx_entry_point_s *
Manifest::findEntryPoint(const std::string &name) const {
  for (const rlx_entry_point_s &entry : entryPoints)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

const TensorSpec *Manifest::findParam(const std::string &name) const {
  for (const TensorSpec &param : params)
    if (param.name == name)
      return &param;
  return nullptr;
}

std::string Manifest::entryPointNames() const {
  std::string names;
  for (size_t i : userEntryPoints)
    names += (names.empty() ? "'" : ", '") + entryPoints[i].name + "'";
  return names.empty() ? "none" : names;
}

Manifest parseManifest(const std::string &path, const std::string &text) {
  return ManifestParser(path).parse(text);
}

} // namespace rlxrt
